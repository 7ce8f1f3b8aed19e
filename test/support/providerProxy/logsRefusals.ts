import { unknownBlock } from "./historyRefusals.js";
import { hex, type Refusal } from "./jsonRpc.js";
import type { ProviderStyle } from "./settings.js";

/**
 * An eth_getLogs block range after tags are resolved. `fromLatest`/`toLatest` keep whether the bound
 * was "latest" (or absent), because geth's range cap sees those as 2^64-1 rather than the head.
 */
export interface RequestedRange {
  readonly from: number;
  readonly to: number;
  readonly fromLatest: boolean;
  readonly toLatest: boolean;
}

const U64 = 2n ** 64n;

/**
 * Whether the range is wider than `limit` as the style's own code counts it.
 * - reth (crates/rpc/rpc/src/eth/filter.rs): `to - from > max_blocks_per_filter`.
 * - geth (eth/filters/filter.go): `end - begin > rangeLimit` in uint64, with "latest" resolved to
 *   MaxUint64 before the check, so {fromBlock: N, toBlock: "latest"} is always refused once
 *   `--rpc.rangelimit` is set. Emulated as is: a client meets it on a real geth.
 * - QuickNode: `to - from > 10,000` (ponder-sh/ponder packages/utils/src/_test/quicknode.test.ts: a
 *   range of fromBlock..fromBlock+10000 passes, +10001 is refused). Infura's range cap is taken the same way.
 * - Alchemy counts blocks inclusively: a "500 block range" refuses 501 blocks and suggests 500
 *   (risc0/risc0-ethereum#656).
 */
export const exceedsRange = (style: ProviderStyle, range: RequestedRange, limit: number): boolean => {
  switch (style) {
    case "geth": {
      const begin = range.fromLatest ? U64 - 1n : BigInt(range.from);
      const end = range.toLatest ? U64 - 1n : BigInt(range.to);
      return (((end - begin) % U64) + U64) % U64 > BigInt(limit);
    }
    case "alchemy":
      return range.to - range.from + 1 > limit;
    default:
      return range.to - range.from > limit;
  }
};

/** "10,000" as QuickNode writes its cap. */
const withThousands = (n: number): string => n.toLocaleString("en-US");

/** "10K" and "2K" as Alchemy writes its numbers. */
const inThousands = (n: number): string => (n % 1000 === 0 ? `${n / 1000}K` : String(n));

/**
 * The refusal of a range wider than `limit`.
 * - reth: -32602 "query exceeds max block range N" (filter.rs EthFilterError::QueryExceedsMaxBlocks).
 * - geth, Erigon and anvil: -32602 "exceed maximum block range N" (eth/filters/filter.go; no colon, the
 *   colon form is publicnode's proxy).
 * - Infura: -32602 "range R exceeds limit of N" (INFURA/infura#237, seen live in Aug 2026).
 * - Alchemy: HTTP 400, -32600 "You can make eth_getLogs requests with up to a N block range. Based on
 *   your parameters, this block range should work: [0xA, 0xB]" (BobTheBuidler/dank_mids#772,
 *   cartesi/rollups-node#655; HTTP 400 as measured on its free tier).
 * - QuickNode: HTTP 413, -32614 "eth_getLogs is limited to a 10,000 range" (eternalsafe/wallet#57,
 *   OffchainLabs/arbitrum-sdk#609).
 */
export const rangeRefusal = (style: ProviderStyle, limit: number, range: RequestedRange): Refusal => {
  switch (style) {
    case "reth":
      return { kind: "range", error: { code: -32602, message: `query exceeds max block range ${limit}` } };
    case "infura":
      return {
        kind: "range",
        error: { code: -32602, message: `range ${range.to - range.from} exceeds limit of ${limit}` },
      };
    case "alchemy":
      return {
        kind: "range",
        httpStatus: 400,
        error: {
          code: -32600,
          message: `You can make eth_getLogs requests with up to a ${limit} block range. Based on your parameters, this block range should work: [${hex(range.from)}, ${hex(range.from + limit - 1)}]`,
        },
      };
    case "quicknode":
      return {
        kind: "range",
        httpStatus: 413,
        error: { code: -32614, message: `eth_getLogs is limited to a ${withThousands(limit)} range` },
      };
    default:
      return { kind: "range", error: { code: -32602, message: `exceed maximum block range ${limit}` } };
  }
};

/** Alchemy has no response cap for ranges up to this `to - from` (ponder's alchemy.test.ts). */
const ALCHEMY_UNCAPPED_SPAN = 2_000;

/**
 * Whether the result cap applies to the range: reth always returns a single block's logs whole
 * (filter.rs `is_multi_block_range`); Alchemy caps only ranges wider than 2K blocks.
 */
export const resultsCapApplies = (style: ProviderStyle, range: RequestedRange): boolean => {
  if (style === "reth") return range.from !== range.to;
  if (style === "alchemy") return range.to - range.from > ALCHEMY_UNCAPPED_SPAN;
  return true;
};

/**
 * The refusal of a range with more than `cap` logs, suggesting [from, fittingTo].
 * - reth: -32602 "query exceeds max results 20000, retry with the range A-B" (filter.rs).
 * - Infura: -32005 "query returned more than 10000 results. Try with this block range [0xA, 0xB]."
 *   (docs.metamask.io eth_getLogs constraints; ponder's infura.test.ts).
 * - Alchemy: -32602 "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block
 *   range and no limit on the response size, or you can request any block range with a cap of 10K logs
 *   in the response. Based on your parameters and the response size limit, this block range should
 *   work: [0xA, 0xB]" (ethers-io/ethers.js#4703, eqlabs/pathfinder#42), HTTP 200 as ponder's
 *   alchemy.test.ts gets it as an RpcError.
 * Other styles have no result cap (settings reject one).
 */
export const resultsRefusal = (
  style: ProviderStyle,
  cap: number,
  from: number,
  fittingTo: number,
): Refusal => {
  switch (style) {
    case "infura":
      return {
        kind: "results",
        error: {
          code: -32005,
          message: `query returned more than ${cap} results. Try with this block range [${hex(from)}, ${hex(fittingTo)}].`,
        },
      };
    case "alchemy":
      return {
        kind: "results",
        error: {
          code: -32602,
          message: `Log response size exceeded. You can make eth_getLogs requests with up to a ${inThousands(ALCHEMY_UNCAPPED_SPAN)} block range and no limit on the response size, or you can request any block range with a cap of ${inThousands(cap)} logs in the response. Based on your parameters and the response size limit, this block range should work: [${hex(from)}, ${hex(fittingTo)}]`,
        },
      };
    default:
      return {
        kind: "results",
        error: {
          code: -32602,
          message: `query exceeds max results ${cap}, retry with the range ${from}-${fittingTo}`,
        },
      };
  }
};

/**
 * A range ending above the head. reth: -32602 "block range extends beyond current head block:
 * requested T, head H" (filter.rs BlockRangeExceedsHead); geth and the rest: -32602 "block range extends
 * beyond current head block" (eth/filters/api.go errBlockRangeIntoFuture).
 */
export const beyondHeadRefusal = (style: ProviderStyle, to: number, head: number): Refusal => ({
  kind: "lag",
  error: {
    code: -32602,
    message:
      style === "reth"
        ? `block range extends beyond current head block: requested ${to}, head ${head}`
        : "block range extends beyond current head block",
  },
});

/** fromBlock above toBlock: -32602 "invalid block range params" in reth and geth alike. */
export const invalidRangeRefusal = (): Refusal => ({
  kind: "range",
  error: { code: -32602, message: "invalid block range params" },
});

/**
 * A blockHash filter naming a block the node does not have: reth -32001 "block not found: hash 0x…",
 * geth -32000 "unknown block" (eth/filters/api.go errUnknownBlock).
 */
export const unknownLogsBlock = (style: ProviderStyle, hash: string): Refusal =>
  style === "reth"
    ? unknownBlock(style, { hash })
    : { kind: "lag", error: { code: -32000, message: "unknown block" } };

/**
 * A filter naming more than `limit` addresses, or alternatives in one topic position: geth's
 * `--rpc.logquerylimit` (eth/filters/api.go `errExceedLogQueryLimit`, a plain error, so -32000),
 * and Alchemy's nodes in the same words.
 */
export const filterWidthRefusal = (): Refusal => ({
  kind: "width",
  error: { code: -32000, message: "exceed max addresses or topics per search position" },
});

/** The widest address list or topic position of `filter`. */
export const filterWidth = (filter: Readonly<Record<string, unknown>>): number => {
  const widths = [Array.isArray(filter.address) ? filter.address.length : 0];
  if (Array.isArray(filter.topics))
    for (const topic of filter.topics) widths.push(Array.isArray(topic) ? topic.length : 0);
  return Math.max(...widths);
};
