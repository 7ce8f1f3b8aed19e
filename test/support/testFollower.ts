import type { JetStreamClient } from "@nats-io/jetstream";
import { Effect, Exit, Fiber, Scope } from "effect";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { followChain } from "../../src/ingest/ChainFollower.js";
import { type FollowerStatus, initialStatus } from "../../src/ingest/FollowerStatus.js";
import { acquireLease, type HeldLease } from "../../src/ingest/lease/ChainLease.js";
import { testChainConfig } from "./chainConfigFixture.js";
import { directChainRpc, openTestChainRpc } from "./chainRpc.js";
import { memoryBucket } from "./memoryLeaseBucket.js";
import { eventually } from "./serviceHarness.js";

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
  /**
   * The chain's RPC handle, when the test needs one of its own (a monitored one, whose probes tell
   * what the node keeps); by default a direct one to `url`, never probed. The follower closes it.
   */
  readonly rpc?: { readonly rpc: ChainRpc; readonly close: () => Promise<void> };
  /** Read internal native transfers with each block (the node must serve debug_traceBlockByHash). */
  readonly traces?: boolean;
  /** How long a refused trace waits on endpoints that say nothing (the follower's default: 60 s). */
  readonly untraceHoldMs?: number;
  /** The chain's `start_block`: history from there is read first (by default the follower starts at the head). */
  readonly startBlock?: number;
  /** How long a history skip waits on endpoints that hold it back (the follower's default: 10 min). */
  readonly historyHoldMs?: number;
  /** What the follower saves its checkpoint through (a lease whose saves fail, say). */
  readonly throughLease?: (lease: HeldLease) => HeldLease;
}) => {
  const { rpc, close } =
    options.rpc ?? directChainRpc(options.url, { chainId: options.chainId, timeoutMs: 10_000 });
  const status = initialStatus(options.chainId, "base");
  const scope = Effect.runSync(Scope.make());
  const fiber = Effect.runFork(
    Effect.gen(function* () {
      const lease = yield* acquireLease(memoryBucket().view().store, `chain.${options.chainId}`, "test", {
        leaseMs: 60_000,
      });
      return yield* followChain({
        chain: testChainConfig({
          chain_id: options.chainId,
          name: "base",
          rpc_url: options.url,
          traces: options.traces ?? false,
          ...(options.startBlock === undefined ? {} : { start_block: options.startBlock }),
        }),
        rpc,
        capabilities: Effect.succeed({
          blockReceipts: true,
          traces: options.traces ?? false,
          complete: true,
        }),
        js: options.js,
        lease: options.throughLease?.(lease) ?? lease,
        legacyCheckpoint: undefined,
        status,
        pollMs: options.pollMs,
        historyRange: 500,
        prefetch: 8,
        catchUpRange: 32,
        maxPayload: 1024 * 1024,
        ...(options.untraceHoldMs === undefined ? {} : { untraceHoldMs: options.untraceHoldMs }),
        ...(options.historyHoldMs === undefined ? {} : { historyHoldMs: options.historyHoldMs }),
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

/** Waits until the follower has published block `head` and follows the chain live; answers `head`. */
export const followedToHead = async (status: FollowerStatus, head: number): Promise<number> => {
  await eventually(
    async () => status.processed === head && status.mode === "live",
    30_000,
    "the follower at the head",
  );
  return head;
};

/**
 * A follower reading through several endpoints (`urls`, the first named as the chain's URL), each
 * probed once before it starts and then every `probeIntervalMs`. Its calls give up within a second,
 * so that a read one endpoint cannot take (it is down) fails with another's refusal, as any read
 * does once an endpoint is down for longer than a call's budget.
 */
export const startProbedFollower = async (options: {
  readonly urls: ReadonlyArray<string>;
  readonly js: JetStreamClient;
  readonly chainId: number;
  readonly probeIntervalMs: number;
  readonly traces?: boolean;
  readonly untraceHoldMs?: number;
  readonly startBlock?: number;
  readonly historyHoldMs?: number;
}) => {
  const rpc = await openTestChainRpc(options.urls, {
    chainId: options.chainId,
    probeIntervalMs: options.probeIntervalMs,
    headPollMs: 200,
  });
  await rpc.firstProbe();
  return startTestFollower({
    url: options.urls[0]!,
    js: options.js,
    chainId: options.chainId,
    pollMs: 100,
    ...(options.traces === undefined ? {} : { traces: options.traces }),
    ...(options.untraceHoldMs === undefined ? {} : { untraceHoldMs: options.untraceHoldMs }),
    ...(options.startBlock === undefined ? {} : { startBlock: options.startBlock }),
    ...(options.historyHoldMs === undefined ? {} : { historyHoldMs: options.historyHoldMs }),
    rpc: { rpc: rpc.rpc.forRequests(1_000), close: rpc.close },
  });
};
