import { Clock, Effect } from "effect";
import { type Asked, askEndpoint } from "./askEndpoint.js";
import type { RpcFaultDetail } from "./ChainRpcError.js";
import type { NodeCapabilities } from "./NodeCapabilities.js";
import type { RpcEndpoint } from "./RpcEndpoint.js";

/** How long one probe call may take: a probe must not hang on a node that hangs. */
const PROBE_CALL_MS = 5_000;
const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
const EMPTY_BLOOM = /^0x0*$/;
/** Headers looked at one by one past a block without logs, for one whose bloom says it has some. */
const BLOOM_LOOKAHEAD = 8;

const hex = (n: number) => `0x${n.toString(16)}`;

/** One call to this endpoint only, within a probe's budget for a call. */
const ask = (endpoint: RpcEndpoint, method: string, params: ReadonlyArray<unknown>): Effect.Effect<Asked> =>
  askEndpoint(endpoint, method, params, PROBE_CALL_MS);

/** A probe step whose answer was neither yes nor no (the node failed): the probe stops there. */
class Inconclusive {
  constructor(readonly fault: RpcFaultDetail) {}
}

/** Yes when answered, no when the endpoint says it has not that history (or method), else inconclusive. */
const yesOrNo = (asked: Asked): Effect.Effect<boolean, Inconclusive> =>
  asked.ok
    ? Effect.succeed(true)
    : asked.fault.reason === "HistoryUnavailable" || asked.fault.reason === "MethodUnavailable"
      ? Effect.succeed(false)
      : Effect.fail(new Inconclusive(asked.fault));

/**
 * The oldest block in 0..head for which `has` holds, assuming it holds for every later block (a
 * node keeps a window up to its head). Looks back in steps growing 4-fold from 64 blocks, then
 * halves the gap, stopping within 1/64 of the distance from the head: about 35 calls on a
 * 25M-block chain, 1 on an archive node.
 */
export const oldestAvailable = <E>(
  head: number,
  has: (block: number) => Effect.Effect<boolean, E>,
): Effect.Effect<number | undefined, E> =>
  Effect.gen(function* () {
    if (yield* has(0)) return 0;
    if (!(yield* has(head))) return undefined;
    let good = head;
    let bad = 0;
    for (let depth = 64; depth < head; depth *= 4) {
      if (!(yield* has(head - depth))) {
        bad = head - depth;
        break;
      }
      good = head - depth;
    }
    while (good - bad > Math.max(1, Math.floor((head - good) / 64))) {
      const middle = Math.floor((good + bad) / 2);
      if (yield* has(middle)) good = middle;
      else bad = middle;
    }
    return good;
  });

/** Whether the endpoint has state at `block`. */
const hasState = (endpoint: RpcEndpoint) => (block: number) =>
  Effect.flatMap(ask(endpoint, "eth_getBalance", [ZERO_ADDRESS, hex(block)]), yesOrNo);

/**
 * The blocks whose headers are read for one that shows whether a node serves the logs of `block`:
 * the 8 from it, then pairs at offsets growing 4-fold from 16, as far as the search's precision
 * there (1/64 of the distance to the head). A chain's first blocks often have no transactions
 * (Ethereum's first tens of thousands), and without a block that has some, the question about
 * block 0 was answered by an empty range, which a node that skips pruned blocks also gives: such a
 * node read as an archive.
 */
export function* logEvidenceBlocks(block: number, head: number): Generator<number> {
  const last = Math.min(head, block + Math.max(BLOOM_LOOKAHEAD - 1, Math.floor((head - block) / 64)));
  for (let n = block; n < block + BLOOM_LOOKAHEAD && n <= last; n++) yield n;
  for (let offset = 16; block + offset <= last; offset *= 4) {
    yield block + offset;
    if (block + offset + 1 <= last) yield block + offset + 1;
  }
}

interface EvidenceHeader {
  readonly hash?: string;
  readonly logsBloom?: string;
  readonly transactions?: ReadonlyArray<unknown>;
}

/**
 * Whether the endpoint serves the logs of `block`, from the first block from there
 * (`logEvidenceBlocks`) that can show it: one whose bloom says it has logs (its logs, asked by hash
 * so a reorg in between cannot empty them, must come back non-empty) or, where the node serves
 * block receipts, one with transactions (its receipts must come back). So an empty answer, which
 * some clients give for pruned blocks instead of an error (reth skips blocks whose receipts are
 * missing), counts as missing history, not as a block without logs. When that block is past the one
 * asked about, a refusal of the one asked about still counts. A header the node fails past it ends
 * the probe (inconclusive); where no block near shows anything, the range is asked: there is
 * nothing there to miss, and a node without that history may refuse it.
 */
const hasLogs =
  (endpoint: RpcEndpoint, head: number, blockReceipts: boolean | undefined) => (block: number) =>
    Effect.gen(function* () {
      for (const n of logEvidenceBlocks(block, head)) {
        const header = yield* ask(endpoint, "eth_getBlockByNumber", [hex(n), false]);
        if (!header.ok) {
          if (n === block) return yield* yesOrNo(header);
          return yield* Effect.fail(new Inconclusive(header.fault));
        }
        if (header.result === null) {
          if (n === block) return false;
          return yield* Effect.fail(
            new Inconclusive({ reason: "Unavailable", detail: `block ${n} unknown` }),
          );
        }
        const { hash, logsBloom, transactions } = header.result as EvidenceHeader;
        const showsLogs = logsBloom !== undefined && !EMPTY_BLOOM.test(logsBloom);
        const showsReceipts = blockReceipts === true && (transactions?.length ?? 0) > 0;
        if (hash === undefined || (!showsLogs && !showsReceipts)) continue;
        if (n > block) {
          const own = yield* ask(endpoint, "eth_getLogs", [{ fromBlock: hex(block), toBlock: hex(block) }]);
          if (!own.ok) return yield* yesOrNo(own);
        }
        if (showsLogs) {
          const logs = yield* ask(endpoint, "eth_getLogs", [{ blockHash: hash }]);
          if (!logs.ok) return yield* yesOrNo(logs);
          return Array.isArray(logs.result) && logs.result.length > 0;
        }
        const receipts = yield* ask(endpoint, "eth_getBlockReceipts", [hex(n)]);
        if (!receipts.ok) return yield* yesOrNo(receipts);
        return Array.isArray(receipts.result) && receipts.result.length > 0;
      }
      return yield* Effect.flatMap(
        ask(endpoint, "eth_getLogs", [{ fromBlock: hex(block), toBlock: hex(block) }]),
        yesOrNo,
      );
    });

/**
 * What one endpoint answers, measured: its chain id, its head, whether it serves
 * eth_getBlockReceipts and debug_traceBlockByHash (callTracer), and how far back it keeps state and
 * logs. A step the node fails (timeout, unreachable) leaves its field unknown and ends the probe,
 * which is tried again at the next round.
 */
export const probeNode = (endpoint: RpcEndpoint): Effect.Effect<NodeCapabilities> =>
  Effect.gen(function* () {
    const found: { -readonly [K in keyof NodeCapabilities]: NodeCapabilities[K] } = {};
    const stopped = yield* Effect.either(
      Effect.gen(function* () {
        const chainId = yield* ask(endpoint, "eth_chainId", []);
        if (!chainId.ok) return yield* Effect.fail(new Inconclusive(chainId.fault));
        found.chainId = Number.parseInt(String(chainId.result), 16);
        const head = yield* ask(endpoint, "eth_blockNumber", []);
        if (!head.ok) return yield* Effect.fail(new Inconclusive(head.fault));
        const headNumber = Number.parseInt(String(head.result), 16);
        found.head = headNumber;
        const latest = yield* ask(endpoint, "eth_getBlockByNumber", [hex(headNumber), false]);
        const hash = latest.ok ? (latest.result as { hash?: string } | null)?.hash : undefined;
        found.blockReceipts = yield* Effect.flatMap(
          ask(endpoint, "eth_getBlockReceipts", [hex(headNumber)]),
          yesOrNo,
        );
        if (hash !== undefined)
          found.traces = yield* Effect.flatMap(
            ask(endpoint, "debug_traceBlockByHash", [hash, { tracer: "callTracer" }]),
            yesOrNo,
          );
        const stateFrom = yield* oldestAvailable(headNumber, hasState(endpoint));
        found.stateFrom = stateFrom ?? headNumber + 1;
        const logsFrom = yield* oldestAvailable(
          headNumber,
          hasLogs(endpoint, headNumber, found.blockReceipts),
        );
        found.logsFrom = logsFrom ?? headNumber + 1;
      }),
    );
    if (stopped._tag === "Left")
      yield* Effect.logDebug(`probe of ${endpoint.label} stopped: ${stopped.left.fault.detail}`);
    else found.probedAt = yield* Clock.currentTimeMillis;
    return found;
  });
