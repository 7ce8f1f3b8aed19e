import { Effect } from "effect";
import { createPublicClient, http, type PublicClient } from "viem";
import type { AppSettings } from "../../src/AppConfig.js";
import { createKey } from "../../src/api/keys/KeyStore.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { adminBuckets } from "./anvilService.js";
import { everyWalletChainsFile } from "./chainsFile.js";
import { startTestDevnet, type TestDevnet } from "./devnetFixture.js";
import { startTestNats, type TestNats } from "./natsServer.js";
import { eventually, type RunningService, startService } from "./serviceHarness.js";

/** The whole service on the embedded devnet, with a key of team `test`, healthy. */
export interface DevnetService {
  readonly nats: TestNats;
  readonly devnet: TestDevnet;
  readonly service: RunningService;
  readonly key: string;
  readonly get: (path: string, headers?: Record<string, string>) => Promise<Response>;
  readonly stop: () => Promise<void>;
}

/**
 * An answer of a wallet whose discovery is done: one that says `DISCOVERY_IN_PROGRESS` (the
 * devnet's history predates the service, so a wallet's first answers do), or a 503 that says to
 * retry shortly (the first read of the 1,200-token wallet, whose pools are looked up then, can
 * take longer than a chain's budget on a busy machine), is asked again, as a client would, for up
 * to 60 s. The tests on this harness check what an answer holds; what first answers say while
 * discovery runs is tested in test/integration/discovery/.
 */
const untilDiscovered = async (ask: () => Promise<Response>): Promise<Response> => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const response = await ask();
    if (response.status !== 200 && response.status !== 503) return response;
    const text = await response.text();
    const discovering =
      (response.status === 503 && text.includes("retry shortly")) || text.includes('"DISCOVERY_IN_PROGRESS"');
    if (!discovering || Date.now() > deadline)
      return new Response(text, { status: response.status, headers: response.headers });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

export const startDevnetService = async (
  settings: Partial<AppSettings> = {},
  /** `everyWallet`: the chains record every wallet's token touches (everyWalletChainsFile). */
  options: { readonly everyWallet?: boolean } = {},
): Promise<DevnetService> => {
  const nats = await startTestNats();
  const devnet = await startTestDevnet();
  const chainsConfig =
    options.everyWallet === true
      ? await everyWalletChainsFile(devnet.devnet.chainsConfigPath)
      : devnet.devnet.chainsConfigPath;
  const service = await startService(nats, { chainsConfig, settings });
  const buckets = await adminBuckets(await nats.connectAs("admin"));
  const { key } = await Effect.runPromise(createKey(buckets, "test"));
  // Every chain's index must catch up with the seeded history first: slow when every core is busy.
  await eventually(
    async () => (await fetch(`${service.baseUrl}/healthz`)).status === 200,
    150_000,
    "healthz 200",
  );
  return {
    nats,
    devnet,
    service,
    key,
    get: (path, headers = {}) =>
      untilDiscovered(() =>
        fetch(`${service.baseUrl}${path}`, { headers: { "x-svc-api-key": key, ...headers } }),
      ),
    stop: async () => {
      await service.stop();
      await devnet.stop();
      await nats.stop();
    },
  };
};

/**
 * The devnet chain of an id, and one viem client per chain without a block-number cache (tests compare
 * the head before and after a request). `service` is read on each call: tests start it in `beforeAll`.
 */
export const devnetChains = (service: () => DevnetService) => {
  const clients = new Map<number, PublicClient>();
  const chainOf = (id: number): ManifestChain =>
    service().devnet.manifest.chains.find((c) => c.chain_id === id)!;
  const clientOf = (id: number): PublicClient => {
    let client = clients.get(id);
    if (client === undefined) {
      client = createPublicClient({ transport: http(chainOf(id).rpc_url), cacheTime: 0 }) as PublicClient;
      clients.set(id, client);
    }
    return client;
  };
  return { chainOf, clientOf };
};
