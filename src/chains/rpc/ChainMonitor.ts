import { Clock, Deferred, Effect, type Scope } from "effect";
import type { ChainRpc } from "./ChainRpc.js";
import type { ChainCapabilities, NodeCapabilities } from "./NodeCapabilities.js";
import { probeNode } from "./probeNode.js";
import type { RpcEndpoint } from "./RpcEndpoint.js";

export interface MonitorSettings {
  /** How often an endpoint's head is asked for when no call has reported it lately. */
  readonly headPollMs: number;
  /** How often each endpoint's capabilities are probed again. */
  readonly probeIntervalMs: number;
}

/** A head poll must not wait as long as a call may: a hung node should show within seconds. */
const HEAD_POLL_TIMEOUT_MS = 3_000;

const describe = (caps: NodeCapabilities): string =>
  [
    caps.stateFrom === undefined
      ? "state ?"
      : caps.stateFrom === 0
        ? "state: all blocks"
        : `state from block ${caps.stateFrom}`,
    caps.logsFrom === undefined
      ? "logs ?"
      : caps.logsFrom === 0
        ? "logs: all blocks"
        : `logs from block ${caps.logsFrom}`,
    `block receipts ${caps.blockReceipts === undefined ? "?" : caps.blockReceipts ? "yes" : "no"}`,
    `traces ${caps.traces === undefined ? "?" : caps.traces ? "yes" : "no"}`,
  ].join(", ");

/**
 * Keeps one chain's view of its endpoints current while no call does: asks each endpoint its head
 * when none was reported for `headPollMs` (so a node that hangs, or falls behind the others, shows
 * within seconds even on a process that reads the chain rarely), and probes what each endpoint can
 * answer at start and every `probeIntervalMs` (probeNode.ts). An endpoint serving another chain id
 * than configured is named in an error and never used. Returns a wait for the first probe round.
 */
export const monitorChain = (
  rpc: ChainRpc,
  settings: MonitorSettings,
): Effect.Effect<Effect.Effect<ChainCapabilities>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const firstRound = yield* Deferred.make<ChainCapabilities>();
    const name = `chain ${rpc.settings.name} (${rpc.chainId})`;

    const probe = (endpoint: RpcEndpoint) =>
      Effect.gen(function* () {
        const before = endpoint.health.capabilities;
        const found = yield* probeNode(endpoint);
        if (found.chainId !== undefined && found.chainId !== rpc.chainId) {
          if (endpoint.health.wrongChain !== found.chainId)
            yield* Effect.logError(
              `${name}: RPC endpoint ${endpoint.label} serves chain id ${found.chainId}, not ${rpc.chainId}; it is not used`,
            );
          endpoint.health.wrongChain = found.chainId;
          endpoint.health.lastError = `serves chain id ${found.chainId}, not ${rpc.chainId}`;
        } else if (found.chainId !== undefined) endpoint.health.wrongChain = undefined;
        if (found.probedAt === undefined) {
          // A probe the node failed keeps what was known before.
          if (before === undefined) endpoint.health.capabilities = found;
          return;
        }
        endpoint.health.lacks.clear();
        endpoint.health.capabilities = found;
        if (found.head !== undefined) endpoint.health.observeHead(found.head, found.probedAt);
        if (before === undefined || describe(before) !== describe(found))
          yield* Effect.logInfo(`${name}: RPC endpoint ${endpoint.label}: ${describe(found)}`);
      });

    const probeAll = Effect.forEach(rpc.endpoints, probe, { concurrency: "unbounded", discard: true });

    yield* Effect.forkScoped(
      Effect.gen(function* () {
        yield* probeAll;
        yield* Deferred.succeed(firstRound, rpc.capabilities());
        for (;;) {
          yield* Effect.sleep(settings.probeIntervalMs);
          yield* probeAll;
        }
      }),
    );

    /** When each endpoint was last polled: a failing one is polled at the same pace as an idle one. */
    const polledAt = new Map<RpcEndpoint, number>();

    const pollHead = (endpoint: RpcEndpoint) =>
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis;
        const health = endpoint.health;
        if (health.wrongChain !== undefined) return;
        // The provider asked for a pause: a poll would only wait it out in this process's line.
        if (endpoint.budget.pausedUntil > now) return;
        // Polled even while calls leave it alone: the poll is how a failing endpoint is found back.
        if (now - Math.max(health.headSeenAt, polledAt.get(endpoint) ?? 0) < settings.headPollMs) return;
        polledAt.set(endpoint, now);
        const timeoutMs = Math.min(HEAD_POLL_TIMEOUT_MS, endpoint.settings.timeoutMs);
        // Every connection held by calls the node does not answer is a hang too: the wait for one
        // counts, with as long again as the poll itself so that a busy but answering node is not it.
        // A wait for this process's own rate budget says nothing of the node: an endpoint answering
        // everything at its max_rps was called failing every few seconds.
        const { outcome, latencyMs, unsentFor } = yield* endpoint.send(
          [{ method: "eth_blockNumber", params: [] }],
          timeoutMs,
          2 * timeoutMs,
        );
        // Nor does a wait for a connection while this process is at the endpoint's rate: calls
        // waiting for the budget hold the connections.
        if (
          unsentFor === "rate" ||
          (unsentFor === "connection" && endpoint.budget.atRate(yield* Clock.currentTimeMillis))
        )
          return;
        const answer =
          outcome.kind === "answers" ? outcome.answers[0]! : { ok: false as const, fault: outcome.fault };
        const at = yield* Clock.currentTimeMillis;
        if (answer.ok) {
          const wasFailing = health.failures > 0;
          health.answered(latencyMs);
          endpoint.budget.answered(1, at);
          health.observeHead(Number.parseInt(String(answer.result), 16), at);
          if (wasFailing) yield* Effect.logInfo(`${name}: RPC endpoint ${endpoint.label} answers again`);
          return;
        }
        if (answer.fault.reason === "RateLimited") {
          health.refused(answer.fault, at);
          yield* endpoint.budget.refused(answer.fault.retryAfterMs);
          return;
        }
        const wasUp = health.failures === 0;
        health.failed(answer.fault, at);
        if (wasUp)
          yield* Effect.logWarning(
            `${name}: RPC endpoint ${endpoint.label} is failing: ${answer.fault.detail}`,
          );
      });

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.zipRight(
          Effect.forEach(rpc.endpoints, pollHead, { concurrency: "unbounded", discard: true }),
          Effect.sleep(Math.max(100, Math.floor(settings.headPollMs / 2))),
        ),
      ),
    );
    return Deferred.await(firstRound);
  });
