import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import type { AppSettings } from "../../src/AppConfig.js";
import { createKey, type KeyBuckets } from "../../src/api/keys/KeyStore.js";
import { type AnvilInstance, startAnvil } from "../../src/devnet/AnvilProcess.js";
import type { RateLimit } from "../../src/domain/ApiKey.js";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
import { startTestNats, type TestNats } from "./natsServer.js";
import { type RunningService, startService, writeChainsFile } from "./serviceHarness.js";

/** The key buckets, opened as the `admin` user (the way the admin CLI writes keys). */
export const adminBuckets = async (admin: NatsConnection): Promise<KeyBuckets> => ({
  keys: await Effect.runPromise(openBucket(admin, "keys")),
  teams: await Effect.runPromise(openBucket(admin, "teams")),
});

export interface AnvilService {
  readonly nats: TestNats;
  readonly anvil: AnvilInstance;
  readonly service: RunningService;
  /** An `admin` NATS connection, for admin calls. */
  readonly admin: NatsConnection;
  readonly buckets: KeyBuckets;
  /** A new key of `team` (created with the team if needed). */
  readonly createKey: (
    team: string,
    rateLimit?: RateLimit,
  ) => Promise<Effect.Effect.Success<ReturnType<typeof createKey>>>;
  readonly stop: () => Promise<void>;
}

/** The service on one plain anvil chain (id 1, `ethereum`), for platform tests that need no protocol contracts. */
export const startAnvilService = async (
  tags: ReadonlyArray<string> = ["default"],
  settings: Partial<AppSettings> = {},
): Promise<AnvilService> => {
  const nats = await startTestNats();
  const anvil = await startAnvil({ chainId: 1 });
  const dir = await mkdtemp(join(tmpdir(), "svc-chains-"));
  const chainsConfig = await writeChainsFile(dir, [
    // A fresh chain the service reads whole, every wallet's touches recorded: no answer waits for discovery.
    { chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl, tags, extra: { index_wallets: "all" } },
  ]);
  const service = await startService(nats, { chainsConfig, settings });
  const admin = await nats.connectAs("admin");
  const buckets = await adminBuckets(admin);
  return {
    nats,
    anvil,
    service,
    admin,
    buckets,
    createKey: (team, rateLimit) => Effect.runPromise(createKey(buckets, team, rateLimit ?? null)),
    stop: async () => {
      await service.stop();
      await anvil.stop();
      await nats.stop();
    },
  };
};
