import { type EndpointHealth, RECENT_ERROR_MS } from "./EndpointHealth.js";

/** What a call needs from the endpoint that serves it. */
export interface CallNeed {
  readonly method: string;
  /** It reads the head ("latest", eth_blockNumber): an endpoint behind the others would answer old news. */
  readonly head: boolean;
  /** The block it reads: an endpoint whose head is below it does not have it yet. */
  readonly block?: number;
  /** What it reads at `block`: state (eth_call) or logs and receipts. */
  readonly reads?: "state" | "logs";
  /**
   * The oldest block a logs read needs kept (a range's first). Given, only endpoints known to keep
   * it are asked while any of them can be, even later; otherwise `block` only ranks them.
   */
  readonly from?: number;
  /** Endpoints (by index) that refused this very call as not theirs to answer. */
  readonly excluded: ReadonlySet<number>;
  /**
   * Leave alone an endpoint that failed and has not answered since, even once its pause is over:
   * a call a client waits for should not be the one that finds out whether a hung node is back
   * (the monitor's next head poll does).
   */
  readonly avoidFailing?: boolean;
}

export interface EndpointChoiceInput {
  readonly health: EndpointHealth;
  /** Until when the endpoint asked not to be sent anything (a rate-limit pause). */
  readonly pausedUntil: number;
  /**
   * This process is at the endpoint's rate: a call sent there waits in its line for the budget,
   * while another endpoint may take it at once.
   */
  readonly atRate?: boolean;
}

export type EndpointChoice =
  | { readonly kind: "use"; readonly index: number }
  /** No endpoint can take the call now; the soonest back is `index` at `untilMs`, `failing` or only paused. */
  | { readonly kind: "wait"; readonly index: number; readonly untilMs: number; readonly failing: boolean }
  | { readonly kind: "none" };

/** A head reported longer ago than this is not trusted as the best head. */
const FRESH_HEAD_MS = 60_000;

/**
 * The endpoint to send a call to: among those that may serve it (right chain, method not known to
 * be missing, not refused for this call, at or past the block it reads), the first in this order:
 * not known to lack the state or logs it reads; no error in the last 30 s; not much slower than the
 * fastest; not at this process's rate for it (a call would wait there for the budget); then the
 * configured order (the primary first). Head reads skip an endpoint more than
 * `maxHeadLag` blocks behind the best head while one that keeps up is not failing. One that is
 * failing or paused is only waited for when no other can take the call now.
 */
export const chooseEndpoint = (
  endpoints: ReadonlyArray<EndpointChoiceInput>,
  need: CallNeed,
  now: number,
  maxHeadLag: number,
): EndpointChoice => {
  const allowed = endpoints
    .map((endpoint, index) => ({ ...endpoint, index }))
    .filter(
      ({ health, index }) =>
        health.wrongChain === undefined && !health.lacks.has(need.method) && !need.excluded.has(index),
    );
  const oldest = need.from ?? need.block;
  // Logs that must be found kept are read only from an endpoint known to keep them while one can be
  // asked, even later: some nodes (reth) answer a pruned block's logs with nothing instead of an
  // error, which would pass for a range read and found empty. One whose probe has not said where
  // its logs begin (stopped early, or not run yet) may be such a node too.
  const mustKeep = need.reads === "logs" ? need.from : undefined;
  const keepingLogs =
    mustKeep === undefined
      ? allowed
      : allowed.filter(({ health }) => {
          const from = health.capabilities?.logsFrom;
          return from !== undefined && from <= mustKeep;
        });
  // With none of those able to take it (the archive refused this very call, or lacks the method),
  // only an endpoint whose probe has not said may be asked, never one known to start later.
  const candidates =
    keepingLogs.length > 0 || mustKeep === undefined
      ? keepingLogs
      : allowed.filter(({ health }) => health.capabilities?.logsFrom === undefined);
  let bestHead: number | undefined;
  let fastest: number | undefined;
  for (const { health } of candidates) {
    if (health.isDown(now)) continue;
    if (health.head !== undefined && now - health.headSeenAt < FRESH_HEAD_MS)
      bestHead = Math.max(bestHead ?? 0, health.head);
    if (health.latencyMs !== undefined)
      fastest = Math.min(fastest ?? Number.POSITIVE_INFINITY, health.latencyMs);
  }
  const failing = ({ health }: (typeof candidates)[number]) =>
    health.isDown(now) || (need.avoidFailing === true && health.failures > 0);
  const reached = candidates.filter(
    ({ health }) => need.block === undefined || health.head === undefined || health.head >= need.block,
  );
  // A block no endpoint that can answer now has reached is asked of all: a head seen a moment ago
  // may already be old (a block mined between two head polls), and a failing endpoint whose last
  // head was higher must not leave the call nowhere to go.
  const reachable = reached.some((endpoint) => !failing(endpoint)) ? reached : candidates;
  const lagging = ({ health }: (typeof candidates)[number]) =>
    bestHead !== undefined && health.head !== undefined && bestHead - health.head > maxHeadLag;
  // Head reads skip an endpoint behind the others while one that keeps up can answer (now or soon).
  const current = need.head ? reachable.filter((endpoint) => !lagging(endpoint)) : reachable;
  const able = current.some(({ health }) => !health.isDown(now)) ? current : reachable;
  if (able.length === 0) return { kind: "none" };
  const penalty = (endpoint: (typeof able)[number]): number => {
    const { health } = endpoint;
    let score = 0;
    const caps = health.capabilities;
    if (oldest !== undefined && caps !== undefined) {
      const from =
        need.reads === "state" ? caps.stateFrom : need.reads === "logs" ? caps.logsFrom : undefined;
      if (from !== undefined && oldest < from) score += 8;
    }
    if (now - health.lastErrorAt < RECENT_ERROR_MS) score += 4;
    if (fastest !== undefined && health.latencyMs !== undefined && health.latencyMs > 3 * fastest + 50)
      score += 2;
    if (endpoint.atRate === true) score += 1;
    return score;
  };
  const ordered = [...able].sort((a, b) => penalty(a) - penalty(b) || a.index - b.index);
  const ready = ordered.find((endpoint) => !failing(endpoint) && endpoint.pausedUntil <= now);
  if (ready !== undefined) return { kind: "use", index: ready.index };
  const soonest = ordered.reduce((a, b) =>
    Math.max(a.health.downUntil, a.pausedUntil) <= Math.max(b.health.downUntil, b.pausedUntil) ? a : b,
  );
  return {
    kind: "wait",
    index: soonest.index,
    untilMs: Math.max(soonest.health.downUntil, soonest.pausedUntil),
    failing: failing(soonest),
  };
};
