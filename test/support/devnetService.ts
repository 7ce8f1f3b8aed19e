import { Effect } from "effect";
import type { AppSettings } from "../../src/AppConfig.js";
import { createKey } from "../../src/api/keys/KeyStore.js";
import { adminBuckets } from "./anvilService.js";
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

export const startDevnetService = async (settings: Partial<AppSettings> = {}): Promise<DevnetService> => {
  const nats = await startTestNats();
  const devnet = await startTestDevnet();
  const service = await startService(nats, { chainsConfig: devnet.devnet.chainsConfigPath, settings });
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
      fetch(`${service.baseUrl}${path}`, { headers: { "x-svc-api-key": key, ...headers } }),
    stop: async () => {
      await service.stop();
      await devnet.stop();
      await nats.stop();
    },
  };
};
