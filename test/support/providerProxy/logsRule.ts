import { type BlockRef, parseBlockRef } from "./blockRefs.js";
import { prunedHistory } from "./historyRefusals.js";
import {
  answer,
  type Final,
  forward,
  hex,
  type Outcome,
  paramsOf,
  type RpcCall,
  type RpcResponse,
  refuse,
  relay,
  withParam,
} from "./jsonRpc.js";
import {
  beyondHeadRefusal,
  exceedsRange,
  filterWidth,
  filterWidthRefusal,
  invalidRangeRefusal,
  type RequestedRange,
  rangeRefusal,
  resultsCapApplies,
  resultsRefusal,
  unknownLogsBlock,
} from "./logsRefusals.js";
import type { RuleContext } from "./ruleContext.js";

type LogFilter = Readonly<Record<string, unknown>>;

const isLatest = (ref: BlockRef): boolean => ref.kind === "tag" && ref.tag === "latest";

/**
 * The last block of a range starting at `from` whose logs stay within `cap`: the block before the one
 * whose logs push the count over it, or `from` itself when that block alone does. This is reth's
 * `retry_to_block`, and it gives Infura and Alchemy a suggestion that really passes.
 */
export const fittingEnd = (
  logs: ReadonlyArray<{ blockNumber?: unknown }>,
  from: number,
  cap: number,
): number => {
  const blocks = logs.map((log) => Number.parseInt(String(log.blockNumber), 16)).sort((a, b) => a - b);
  const overflowing = blocks[cap];
  if (overflowing === undefined) return from;
  return overflowing === from ? from : overflowing - 1;
};

/** A filter by block hash: one block, so only pruning and lag apply. */
const byBlockHash = async (call: RpcCall, hash: string, context: RuleContext): Promise<Outcome> => {
  const { settings, view } = context;
  const number = await view.numberOfHash(hash);
  if (number === undefined) return forward(call);
  if (number > (await view.head())) return refuse(unknownLogsBlock(settings.style, hash));
  const earliest = await view.earliestKept();
  if (earliest !== undefined && number < earliest)
    return settings.silentPrunedLogs ? answer([]) : refuse(prunedHistory(settings.style, number, earliest));
  return forward(call);
};

/**
 * The checks a node makes before it reads any log, in that node's order: reth looks at the head first
 * and at the range width last (filter.rs `logs_for_filter`), geth checks the width before it looks at
 * the head (eth/filters/api.go then filter.go). A range that passes goes upstream with its bounds as
 * numbers, so a lagging node never returns logs from blocks it pretends not to have.
 */
const checkRange = (
  range: RequestedRange,
  head: number,
  earliest: number | undefined,
  context: RuleContext,
  explicitBounds: boolean,
): Final | undefined => {
  const { style, maxLogsRange } = context.settings;
  const pruned = earliest !== undefined && range.from < earliest;
  const tooWide = maxLogsRange !== undefined && exceedsRange(style, range, maxLogsRange);
  if (style === "reth") {
    if (range.to > head) return refuse(beyondHeadRefusal(style, range.to, head));
    if (range.from > head) return answer([]);
    if (range.to < range.from) return refuse(invalidRangeRefusal());
    if (pruned) return refuse(prunedHistory(style, range.from, earliest));
    if (tooWide) return refuse(rangeRefusal(style, maxLogsRange, range));
    return undefined;
  }
  if (explicitBounds && range.from > range.to) return refuse(invalidRangeRefusal());
  if (pruned) return refuse(prunedHistory(style, range.from, earliest));
  if (tooWide) return refuse(rangeRefusal(style, maxLogsRange, range));
  if (range.from > range.to) return refuse(invalidRangeRefusal());
  if (range.to > head) return refuse(beyondHeadRefusal(style, range.to, head));
  return undefined;
};

/**
 * eth_getLogs as the style's node serves it: filter width (checked first, as geth's API does before
 * it reads the range), range cap, result cap, pruned history and lag.
 */
export const getLogsRule = async (call: RpcCall, context: RuleContext): Promise<Outcome> => {
  const { settings, view } = context;
  const filter = paramsOf(call)[0];
  const wideOk = settings.maxFilterWidth;
  if (
    wideOk !== undefined &&
    typeof filter === "object" &&
    filter !== null &&
    !Array.isArray(filter) &&
    filterWidth(filter as LogFilter) > wideOk
  )
    return refuse(filterWidthRefusal());
  const untouched =
    settings.maxLogsRange === undefined &&
    settings.maxLogsResults === undefined &&
    settings.headLag === 0 &&
    settings.prunedWindow === undefined;
  if (untouched || typeof filter !== "object" || filter === null || Array.isArray(filter))
    return forward(call);
  const fields = filter as LogFilter;
  if (typeof fields.blockHash === "string") return byBlockHash(call, fields.blockHash, context);

  const fromRef = parseBlockRef(fields.fromBlock);
  const toRef = parseBlockRef(fields.toBlock);
  const from = await view.numberOf(fromRef);
  const to = await view.numberOf(toRef);
  if (from === undefined || to === undefined) return forward(call);
  const earliest = await view.earliestKept();
  // A node that skips the blocks it pruned reads the range from its window on, silently.
  const skipsPruned = settings.silentPrunedLogs && earliest !== undefined && from < earliest && from <= to;
  if (skipsPruned && to < earliest) return answer([]);
  const read = skipsPruned ? earliest : from;
  const range: RequestedRange = { from, to, fromLatest: isLatest(fromRef), toLatest: isLatest(toRef) };
  const head = await view.head();
  const explicitBounds = fromRef.kind === "number" && toRef.kind === "number";
  const refusal = checkRange(range, head, skipsPruned ? undefined : earliest, context, explicitBounds);
  if (refusal !== undefined) return refusal;

  const bounded = withParam(call, 0, { ...fields, fromBlock: hex(read), toBlock: hex(to) });
  const cap = settings.maxLogsResults;
  if (cap === undefined || !resultsCapApplies(settings.style, range)) return forward(bounded);
  return forward(bounded, (response: RpcResponse) => {
    if (!("result" in response) || !Array.isArray(response.result) || response.result.length <= cap) {
      return relay(response);
    }
    const logs = response.result as ReadonlyArray<{ blockNumber?: unknown }>;
    return refuse(resultsRefusal(settings.style, cap, read, fittingEnd(logs, read, cap)));
  });
};
