import { Effect } from "effect";
import { askEndpoint } from "../chains/rpc/askEndpoint.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";

/** How long one endpoint is given to say whether it keeps a block's receipts or state. */
const ASK_ENDPOINT_MS = 5_000;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

const hex = (n: number) => `0x${n.toString(16)}`;

/** A refusal that says the node pruned the block's receipts, not that it failed or lags. */
export const saysPruned = (reason: string, detail: string | undefined) =>
  reason === "HistoryUnavailable" && /prun/i.test(detail ?? "");

/**
 * A refusal that says the node no longer keeps the state at the block (not a geth archive still
 * indexing its state histories, which will serve it).
 */
export const saysStateGone = (reason: string, detail: string | undefined) =>
  reason === "HistoryUnavailable" &&
  /prun|missing trie node|state/i.test(detail ?? "") &&
  !/not been fully indexed|haven't been fully indexed/i.test(detail ?? "");

const questions = {
  logs: {
    figure: "logsFrom",
    ask: (n: number) => ["eth_getBlockReceipts", [hex(n)]] as const,
    gone: saysPruned,
  },
  state: {
    figure: "stateFrom",
    ask: (n: number) => ["eth_getBalance", [ZERO_ADDRESS, hex(n)]] as const,
    gone: saysStateGone,
  },
} as const;

/**
 * Whether no endpoint of the chain keeps block `n`'s receipts (`logs`) or state (`state`) now,
 * each judged on its own: by its last probe where that puts its first block past `n`, else by its
 * own answer when asked alone (a probe is up to probe_interval_s old, and a pruning window moves on
 * meanwhile). An endpoint that fails, answers, or lacks the method keeps the block as far as anyone
 * can tell: an archive that is down holds back whatever the caller would give up.
 */
export const goneFromEveryEndpoint = (rpc: ChainRpc, n: number, what: "logs" | "state") =>
  Effect.forEach(
    // An endpoint serving another chain is never used, and its answers are about that chain.
    rpc.endpoints.filter((endpoint) => endpoint.health.wrongChain === undefined),
    (endpoint) => {
      const question = questions[what];
      const figure = endpoint.health.capabilities?.[question.figure];
      if (figure !== undefined && figure > n) return Effect.succeed(true);
      const [method, params] = question.ask(n);
      return Effect.map(
        askEndpoint(endpoint, method, params, ASK_ENDPOINT_MS),
        (asked) => !asked.ok && question.gone(asked.fault.reason, asked.fault.detail),
      );
    },
    { concurrency: "unbounded" },
  ).pipe(Effect.map((gone) => gone.every(Boolean)));

/**
 * The first block after `gone` (one no endpoint keeps) that some endpoint keeps, up to `head`,
 * searched by halves: about 14 rounds of one call per endpoint for a window of 10,000 blocks, in a
 * step that is rare. An endpoint that tells neither counts as keeping the block, so the answer errs
 * early (fewer blocks given up). Undefined when even the head is gone from every endpoint.
 */
export const firstKeptAfter = (rpc: ChainRpc, gone: number, head: number, what: "logs" | "state") =>
  Effect.gen(function* () {
    if (yield* goneFromEveryEndpoint(rpc, head, what)) return undefined;
    let low = gone;
    let high = head;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (yield* goneFromEveryEndpoint(rpc, middle, what)) low = middle;
      else high = middle;
    }
    return high;
  });
