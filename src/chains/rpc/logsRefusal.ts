import type { BlockRange } from "./ChainRpcError.js";

/**
 * How an eth_getLogs refusal asks for less: a range the node names, a cap in blocks, or only that
 * the answer was too big. The texts are the providers' own (docs/chain-access.md lists them):
 * reth "retry with the range A-B", Infura "Try with this block range [0x.., 0x..]", Alchemy "this
 * block range should work: [0x.., 0x..]", QuickNode "limited to a 10,000 range", and so on.
 */
export interface LogsRefusal {
  readonly reason: "RangeTooLarge" | "TooManyResults";
  readonly suggested?: BlockRange;
  /** Most blocks per request the node takes, when it says. */
  readonly limit?: number;
  /** Most logs one answer may hold, when it says (reth 20,000, Infura and Alchemy 10,000). */
  readonly resultCap?: number;
}

const number = (text: string): number =>
  text.startsWith("0x") || text.startsWith("0X") ? Number.parseInt(text, 16) : Number(text);

/** "10,000", "10.000", "2K" and "10k" as numbers. */
const count = (text: string): number => {
  const thousands = /k$/i.test(text);
  const digits = Number(text.replace(/[,.\sk]/gi, ""));
  return thousands ? digits * 1000 : digits;
};

const NUMBER = "(0x[0-9a-f]+|\\d+)";

/** Ranges the node proposes, in the order they are tried. */
const SUGGESTED: ReadonlyArray<RegExp> = [
  new RegExp(`retry with the range ${NUMBER}\\s*-\\s*${NUMBER}`, "i"),
  new RegExp(`try with this block range \\[\\s*${NUMBER}\\s*,\\s*${NUMBER}\\s*\\]`, "i"),
  new RegExp(`this block range should work:?\\s*\\[\\s*${NUMBER}\\s*,\\s*${NUMBER}\\s*\\]`, "i"),
];

/** Caps in blocks, as each provider words them; the first group is the number. */
const BLOCK_CAPS: ReadonlyArray<RegExp> = [
  /max(?:imum)? block range:? ([\d,.]+k?)/i,
  /limited to an? ([\d,.]+k?) (?:block )?range/i,
  /limited to ([\d,.]+k?) blocks?/i,
  /at most ([\d,.]+k?) blocks/i,
  /max range: ([\d,.]+k?)/i,
  /maximum is set to ([\d,.]+k?)/i,
  /maximum allowed number of requested blocks is ([\d,.]+k?)/i,
  /block range greater than ([\d,.]+k?) max/i,
  /block range exceeds ([\d,.]+k?)/i,
  /maximum \[from, to\] blocks distance: ([\d,.]+k?)/i,
  /exceeds the range allowed for your plan \(\d+ > ([\d,.]+k?)\)/i,
  /range is too large, max is ([\d,.]+k?) blocks/i,
  /ranges over ([\d,.]+k?) blocks are not supported/i,
  /block range is too wide \(maximum ([\d,.]+k?)\)/i,
  /query must be smaller than size ([\d,.]+k?)/i,
];

/**
 * Alchemy's cap on a plan that caps ranges ("requests with up to a 10 block range", free tier). Its
 * paid plans word a response-size refusal the same way ("up to a 2K block range ... or any block
 * range with a cap of 10K logs"), where the range is advice, not a cap: read only when the
 * refusal is not about the answer's size.
 */
const ADVISED_CAP = /requests with up to an? ([\d,.]+k?) block range/i;

/** Caps on the logs of one answer; the first group is the number. */
const RESULT_CAPS: ReadonlyArray<RegExp> = [
  /max results ([\d,.]+k?)/i,
  /returned more than ([\d,.]+k?) results/i,
  /cap of ([\d,.]+k?) logs/i,
  /exceeds limit of ([\d,.]+k?)/i,
  /more than ([\d,.]+k?) (?:logs|results)/i,
];

const resultCapOf = (text: string): { resultCap?: number } => {
  for (const pattern of RESULT_CAPS) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const cap = count(match[1]!);
    if (Number.isFinite(cap) && cap > 0) return { resultCap: cap };
  }
  return {};
};

/** Range refusals that name no number: halve and try again. */
const RANGE_WORDS =
  /block range (?:is )?too (?:large|wide)|range (?:is )?too (?:large|wide)|block range limit exceeded|exceed(?:s|ed)? (?:the )?(?:max(?:imum)? )?block range|too many blocks/i;

/**
 * proxyd's answer when none of its nodes can serve (every OP-stack public endpoint's outage), which
 * Base's public endpoint also gives a log range far over its 2,000 blocks (as Ponder reads it).
 * Only a range over that is read as too wide; otherwise it is the outage it says.
 */
const NO_BACKEND = /no backend is currently healthy to serve traffic/i;
const PROXYD_RANGE = 2_000;

/** Result or response-size refusals: the range was fine, its logs were too many. */
const RESULT_WORDS =
  /query returned more than|exceeds max results|logs matched by query exceeds|log response size exceeded|response size|response too large|too many (?:logs|results)|query timeout exceeded|result(?:s)? (?:set )?(?:is )?too large|more than [\d,.]+ (?:logs|results)/i;

/**
 * What an eth_getLogs refusal for `requested` asks for, or undefined when the text is not about
 * the range or its size. A suggested range that starts elsewhere than `requested` or does not
 * shrink it is ignored (a node proposing the same range again would loop).
 */
export const parseLogsRefusal = (
  text: string,
  requested: BlockRange | undefined,
): LogsRefusal | undefined => {
  const results = RESULT_WORDS.test(text);
  const reason = results ? "TooManyResults" : "RangeTooLarge";
  const advised = results ? null : ADVISED_CAP.exec(text);
  const advisedLimit = advised === null ? 0 : count(advised[1]!);
  // A range cap the node states with its suggestion stays a ceiling; the suggestion alone would
  // let the range grow back past it and be refused every other request.
  const cap = results ? resultCapOf(text) : advisedLimit > 0 ? { limit: advisedLimit } : {};
  for (const pattern of SUGGESTED) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const from = number(match[1]!);
    const to = number(match[2]!);
    if (!(to >= from)) continue;
    const suggested = { from, to };
    const usable =
      requested === undefined ||
      (from === requested.from && to < requested.to) ||
      (from >= requested.from && to <= requested.to && to - from < requested.to - requested.from);
    if (usable) return { reason, suggested, ...cap };
    // A suggestion that does not fit the request still tells the size the node can take.
    return { reason, limit: Math.max(1, to - from + 1), ...cap };
  }
  if (!results && "limit" in cap) return { reason, ...cap };
  for (const pattern of BLOCK_CAPS) {
    const match = pattern.exec(text);
    if (match === null) continue;
    const limit = count(match[1]!);
    if (Number.isFinite(limit) && limit > 0) return { reason: "RangeTooLarge", limit };
  }
  if (results) return { reason: "TooManyResults", ...cap };
  if (RANGE_WORDS.test(text)) return { reason: "RangeTooLarge" };
  if (NO_BACKEND.test(text) && requested !== undefined && requested.to - requested.from + 1 > PROXYD_RANGE)
    return { reason: "RangeTooLarge" };
  return undefined;
};
