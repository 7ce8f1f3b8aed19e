import { Effect } from "effect";
import { type Asked, askEndpoint } from "../chains/rpc/askEndpoint.js";
import type { ChainRpc } from "../chains/rpc/ChainRpc.js";
import type { RpcEndpoint } from "../chains/rpc/RpcEndpoint.js";

/** How long one endpoint is given (its rate budget's wait included) to say what it keeps of a block. */
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

/** What one endpoint keeps of a block: said it keeps it, said it has not, or said neither. */
export type Verdict = "kept" | "gone" | "unknown";

/** A question answered by one endpoint asked alone (ASK_ENDPOINT_MS at most, its wait included). */
const ask = (endpoint: RpcEndpoint, method: string, params: ReadonlyArray<unknown>) =>
  askEndpoint(endpoint, method, params, ASK_ENDPOINT_MS, ASK_ENDPOINT_MS);

/** An answer judged: kept when answered, gone when refused with `gone`'s words, else unknown. */
const judged = (asked: Asked, gone: (reason: string, detail: string | undefined) => boolean): Verdict =>
  asked.ok ? "kept" : gone(asked.fault.reason, asked.fault.detail) ? "gone" : "unknown";

/**
 * Block `n`'s logs as an endpoint without eth_getBlockReceipts tells what it keeps (its live reads
 * take receipts one by one): kept when it answers some, gone when it refuses them as pruned. An
 * empty answer says neither (a block without logs, or a node answering pruned history empty).
 */
const logsVerdict = (endpoint: RpcEndpoint, n: number): Effect.Effect<Verdict> =>
  Effect.map(ask(endpoint, "eth_getLogs", [{ fromBlock: hex(n), toBlock: hex(n) }]), (asked) =>
    asked.ok && !(Array.isArray(asked.result) && asked.result.length > 0)
      ? "unknown"
      : judged(asked, saysPruned),
  );

/** Whether the endpoint is known not to serve eth_getBlockReceipts (its probe, or a refusal). */
const lacksBlockReceipts = (endpoint: RpcEndpoint) =>
  endpoint.health.lacks.has("eth_getBlockReceipts") || endpoint.health.capabilities?.blockReceipts === false;

/**
 * The two questions: a block's receipts (`logs`: can a live read take it) and the state after it
 * (`state`: can the next block be traced). Only endpoints that can trace answer the second: one
 * that keeps the state but serves no debug_traceBlockByHash cannot take a trace however old. An
 * endpoint without eth_getBlockReceipts is asked for the block's logs instead.
 */
const questions = {
  logs: {
    figure: "logsFrom",
    asks: (_endpoint: RpcEndpoint) => true,
    verdict: (endpoint: RpcEndpoint, n: number): Effect.Effect<Verdict> =>
      lacksBlockReceipts(endpoint)
        ? logsVerdict(endpoint, n)
        : Effect.flatMap(ask(endpoint, "eth_getBlockReceipts", [hex(n)]), (asked) =>
            !asked.ok && asked.fault.reason === "MethodUnavailable"
              ? logsVerdict(endpoint, n)
              : Effect.succeed(judged(asked, saysPruned)),
          ),
  },
  state: {
    figure: "stateFrom",
    asks: (endpoint: RpcEndpoint) =>
      endpoint.health.capabilities?.traces !== false && !endpoint.health.lacks.has("debug_traceBlockByHash"),
    verdict: (endpoint: RpcEndpoint, n: number): Effect.Effect<Verdict> =>
      Effect.map(ask(endpoint, "eth_getBalance", [ZERO_ADDRESS, hex(n)]), (asked) =>
        judged(asked, saysStateGone),
      ),
  },
} as const;

/**
 * Whether the endpoint's last probe shows block `n` gone: the probe's figure is a block found kept,
 * searched to within 1/64 of its depth, so only blocks that far below it are known to be gone.
 */
const probedGone = (endpoint: RpcEndpoint, n: number, what: "logs" | "state") => {
  const capabilities = endpoint.health.capabilities;
  const figure = capabilities?.[questions[what].figure];
  // Past the probe's head: the probe found no block kept, which one "no" at the head can mean.
  if (figure === undefined || capabilities?.head === undefined || figure > capabilities.head) return false;
  return n <= figure - Math.max(1, Math.ceil((capabilities.head - figure) / 64));
};

/**
 * What each endpoint of the chain keeps of block `n`'s receipts (`logs`) or state (`state`) now,
 * each judged on its own: gone where its last probe shows it, else by its own answer when asked
 * alone (a probe is up to probe_interval_s old, and a pruning window moves on meanwhile). An
 * endpoint serving another chain is never used and not asked.
 */
export const endpointVerdicts = (
  rpc: ChainRpc,
  n: number,
  what: "logs" | "state",
  givenUp: (endpoint: RpcEndpoint) => boolean = () => false,
) =>
  Effect.forEach(
    rpc.endpoints.filter(
      (endpoint) => endpoint.health.wrongChain === undefined && questions[what].asks(endpoint),
    ),
    (endpoint) => {
      if (givenUp(endpoint) || probedGone(endpoint, n, what))
        return Effect.succeed({ endpoint, verdict: "gone" as Verdict });
      return Effect.map(questions[what].verdict(endpoint, n), (verdict) => ({ endpoint, verdict }));
    },
    { concurrency: "unbounded" },
  );

/**
 * Whether a skip of logs from block `n` may go ahead, each endpoint asked alone: `kept` when one
 * keeps the block (or there is none to ask), `silent` (naming them) when the others pruned it but
 * some said nothing, `gone` when every one pruned it. Skipped blocks are never read again, so a
 * silent endpoint (an archive that is down, or was never probed) holds a skip back.
 */
export const skipFrom = (rpc: ChainRpc, n: number) =>
  Effect.map(
    endpointVerdicts(rpc, n, "logs"),
    (
      verdicts,
    ):
      | { readonly kind: "kept" | "gone" }
      | { readonly kind: "silent"; readonly labels: ReadonlyArray<string> } => {
      if (verdicts.length === 0 || verdicts.some(({ verdict }) => verdict === "kept"))
        return { kind: "kept" };
      const silent = verdicts.filter(({ verdict }) => verdict === "unknown");
      return silent.length === 0
        ? { kind: "gone" }
        : { kind: "silent", labels: silent.map(({ endpoint }) => endpoint.label) };
    },
  );

/**
 * Endpoints the caller gave up on (they said nothing for as long as it waits): counted as not
 * keeping any block, and not asked again (one that does not answer costs a call's whole budget).
 */
export type GivenUp = (endpoint: RpcEndpoint) => boolean;

/**
 * Whether no endpoint keeps block `n`'s receipts or state now. An endpoint that said neither (it
 * failed, lacks the method) keeps the block as far as anyone can tell, unless `givenUp` names it:
 * an archive that is down holds back whatever the caller would give up. None to ask: not gone.
 */
export const goneFromEveryEndpoint = (
  rpc: ChainRpc,
  n: number,
  what: "logs" | "state",
  givenUp: GivenUp = () => false,
) =>
  Effect.map(
    endpointVerdicts(rpc, n, what, givenUp),
    (verdicts) => verdicts.length > 0 && verdicts.every(({ verdict }) => verdict === "gone"),
  );

/**
 * The first block after `gone` (one no endpoint keeps) that some endpoint keeps, up to `head`,
 * searched by halves: about 14 rounds of one call per endpoint for a window of 10,000 blocks, in a
 * step that is rare. An endpoint that says neither keeps the block unless `givenUp` names it, so
 * the answer errs early (fewer blocks given up). Undefined when even the head is gone.
 */
export const firstKeptAfter = (
  rpc: ChainRpc,
  gone: number,
  head: number,
  what: "logs" | "state",
  givenUp: GivenUp = () => false,
) =>
  Effect.gen(function* () {
    if (yield* goneFromEveryEndpoint(rpc, head, what, givenUp)) return undefined;
    let low = gone;
    let high = head;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (yield* goneFromEveryEndpoint(rpc, middle, what, givenUp)) low = middle;
      else high = middle;
    }
    return high;
  });
