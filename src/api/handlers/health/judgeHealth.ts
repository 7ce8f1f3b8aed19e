import type { ChainNodeStatus } from "../../../contracts/RpcStatus.js";
import type { FollowerStatus } from "../../../ingest/FollowerStatus.js";

/** What /healthz knows of one chain. */
export interface ChainFacts {
  readonly chainId: number;
  readonly name: string;
  /** This API process's view of the chain's RPC endpoints. */
  readonly node: ChainNodeStatus;
  /** The ingest follower's status, if any process follows the chain. */
  readonly ingest: FollowerStatus | undefined;
  /** Whether this node's index has yet to apply what ingest published. */
  readonly indexBehind: boolean;
}

/** Why one chain is not ready: `down` when no endpoint answers, `starting` while it catches up. */
export interface ChainVerdict {
  /** Some endpoint of the chain answers. */
  readonly answers: boolean;
  readonly ready: boolean;
  readonly down: boolean;
  /** Its node answers but its blocks are refused (a full JetStream store): the index and webhooks stop. */
  readonly stalled?: boolean;
  readonly reason?: string;
}

/**
 * `ok`: every role has a live instance and every chain answers with a complete index. `degraded`:
 * some chains' RPC nodes all fail, or their blocks are refused by a full JetStream store (the
 * instance still answers from the chain; the index and webhooks stop), the others are ready (a load balancer keeps the instance: it
 * still serves them, and the failing chains get per-chain errors). `starting`: a role is missing or
 * a chain whose node answers is still catching up. `down`: no chain's node answers at all.
 */
export type ServiceState = "ok" | "degraded" | "starting" | "down";

const failures = (node: ChainNodeStatus): string =>
  node.endpoints
    .map(
      (e) => `${e.url}: ${e.last_error ?? (e.state === "wrong_chain" ? "serves another chain id" : e.state)}`,
    )
    .join("; ");

/** Whether one chain can answer balances completely now, and why not. */
export const judgeChain = (facts: ChainFacts): ChainVerdict => {
  const states = facts.node.endpoints.map((e) => e.state);
  if (states.length > 0 && states.every((s) => s === "failing" || s === "wrong_chain"))
    return {
      answers: false,
      ready: false,
      down: true,
      reason: `RPC not answering (${failures(facts.node)})`,
    };
  if (!states.some((s) => s === "ok" || s === "lagging"))
    return { answers: false, ready: false, down: false, reason: "RPC not answered yet" };
  const answering = { answers: true, ready: false, down: false } as const;
  if (facts.ingest === undefined) return { ...answering, reason: "not followed by ingest yet" };
  if (facts.ingest.store_full === true)
    return {
      ...answering,
      stalled: true,
      reason:
        "blocks refused: the JetStream store is full, so CHAIN_EVENTS takes no block (free space or raise max_file_store)",
    };
  if (facts.ingest.mode !== "live") return { ...answering, reason: "still reading history" };
  if (facts.indexBehind) return { ...answering, reason: "still being indexed" };
  return { answers: true, ready: true, down: false };
};

/** The service's state from its roles and chains, and the sentence saying why it is not `ok`. */
export const judgeService = (
  missingRoles: ReadonlyArray<string>,
  chains: ReadonlyArray<{ readonly facts: ChainFacts; readonly verdict: ChainVerdict }>,
): { readonly state: ServiceState; readonly reason?: string } => {
  const named = (list: typeof chains) =>
    list.map(({ facts, verdict }) => `${facts.name} (${facts.chainId}) ${verdict.reason}`).join("; ");
  const down = chains.filter((c) => c.verdict.down);
  const stalled = chains.filter((c) => c.verdict.stalled === true);
  const starting = chains.filter((c) => !c.verdict.ready && !c.verdict.down && c.verdict.stalled !== true);
  const reasons = [
    ...(missingRoles.length > 0 ? [`no live instance of role ${missingRoles.join(", ")}`] : []),
    ...(starting.length > 0 ? [`chain ${named(starting)}`] : []),
    ...(down.length > 0 ? [`chain ${named(down)}`] : []),
    ...(stalled.length > 0 ? [`chain ${named(stalled)}`] : []),
  ];
  const reason = reasons.length === 0 ? undefined : `${reasons.join("; ")}.`;
  const state: ServiceState =
    missingRoles.length > 0 || starting.length > 0
      ? "starting"
      : chains.length > 0 && down.length === chains.length
        ? "down"
        : down.length > 0 || stalled.length > 0
          ? "degraded"
          : "ok";
  return reason === undefined ? { state } : { state, reason };
};
