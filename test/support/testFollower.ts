import type { JetStreamClient } from "@nats-io/jetstream";
import { Effect, Exit, Fiber, Scope } from "effect";
import { followChain } from "../../src/ingest/ChainFollower.js";
import { initialStatus } from "../../src/ingest/FollowerStatus.js";
import { acquireLease } from "../../src/ingest/lease/ChainLease.js";
import { testChainConfig } from "./chainConfigFixture.js";
import { directChainRpc } from "./chainRpc.js";
import { memoryBucket } from "./memoryLeaseBucket.js";

/**
 * One chain follower (Base-like, chain `chainId`) reading the node at `url` and publishing to `js`,
 * holding its lease in memory: its status to watch, `interrupt` to stop it, `stop` to stop it and
 * close its connections.
 */
export const startTestFollower = (options: {
  readonly url: string;
  readonly js: JetStreamClient;
  readonly chainId: number;
  readonly pollMs: number;
}) => {
  const { rpc, close } = directChainRpc(options.url, { chainId: options.chainId, timeoutMs: 10_000 });
  const status = initialStatus(options.chainId, "base");
  const scope = Effect.runSync(Scope.make());
  const fiber = Effect.runFork(
    Effect.gen(function* () {
      const lease = yield* acquireLease(memoryBucket().view().store, `chain.${options.chainId}`, "test", {
        leaseMs: 60_000,
      });
      return yield* followChain({
        chain: testChainConfig({ chain_id: options.chainId, name: "base", rpc_url: options.url }),
        rpc,
        capabilities: Effect.succeed({ blockReceipts: true, traces: false, complete: true }),
        js: options.js,
        lease,
        legacyCheckpoint: undefined,
        status,
        pollMs: options.pollMs,
        historyRange: 500,
        prefetch: 8,
        catchUpRange: 32,
        maxPayload: 1024 * 1024,
      });
    }).pipe(Scope.extend(scope)),
  );
  const interrupt = () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined);
  return {
    status,
    interrupt,
    stop: async () => {
      await interrupt();
      await Effect.runPromise(Scope.close(scope, Exit.void));
      await close();
    },
  };
};
