import { Effect } from "effect";
import { InvalidRequest, Unavailable } from "../contracts/ApiError.js";
import { firstLineOf } from "../lib/errorReason.js";
import { Lru } from "../lib/Lru.js";
import type { ChainConfig } from "./ChainsConfig.js";
import type { BlockRef } from "./readEachChain.js";
import type { ChainRpc } from "./rpc/ChainRpc.js";
import { ChainRpcError } from "./rpc/ChainRpcError.js";
import type { RpcBlock } from "./rpc/RpcTypes.js";

/** A block a request asked for by height (`block_number`), as its chain's nodes name it. */
export interface PastBlock {
  readonly number: number;
  /** Reads name the block by hash (EIP-1898), so a reorg at that height is never read as it. */
  readonly hash: string;
  /** Unix seconds. */
  readonly timestamp: number;
}

/** Why a height cannot be answered at: a 400 naming the blocks that can. */
export interface PastBlockRefusal {
  readonly code: "BLOCK_NUMBER_AHEAD" | "BLOCK_STATE_UNAVAILABLE";
  readonly message: string;
}

/** What is read of a chain's nodes: a header, and what their probe found they keep. */
export type PastBlockNodes = Pick<ChainRpc, "request" | "capabilities">;

/** Where a request's heights are checked: each chain's nodes and the block its index has reached. */
export interface PastBlocksDeps {
  readonly nodes: (chainId: number) => PastBlockNodes | undefined;
  readonly indexedHead: (chainId: number) => Promise<number | undefined>;
}

/** Final headers kept, all chains together: about 150 bytes each. */
const FINAL_BLOCKS_KEPT = 20_000;

const hex = (n: number) => `0x${n.toString(16)}`;
const named = (chain: ChainConfig) => `${chain.name} (${chain.chain_id})`;

/**
 * The refusal of a height whose state the chain's nodes do not keep, naming the oldest block they
 * do: the probe's figure (NodeCapabilities.stateFrom), or the first block the node itself named
 * in its refusal.
 */
export const stateRefusal = (
  chain: ChainConfig,
  nodes: Pick<ChainRpc, "capabilities">,
  number: number,
  refusal?: ChainRpcError,
): PastBlockRefusal => {
  const probed = nodes.capabilities().stateFrom;
  const oldest = probed !== undefined && probed > number ? probed : refusal?.earliest;
  return {
    code: "BLOCK_STATE_UNAVAILABLE",
    message:
      oldest !== undefined && oldest > number
        ? `${named(chain)}'s RPC nodes keep state from block ${oldest} on, not at block ${number}: ask for block ${oldest} or later.`
        : `${named(chain)}'s RPC nodes keep no state at block ${number} (they refused it as pruned history); the oldest block they keep is not known yet: ask for a later block.`,
  };
};

/** Whether a read failed because the node keeps no state (or header) at the block asked for. */
export const isHistoryRefusal = (error: unknown): error is ChainRpcError =>
  error instanceof ChainRpcError && error.reason === "HistoryUnavailable";

/**
 * Heights asked for by `block_number`, checked and named: a height above the block the index has
 * reached is refused (the index has not seen it, and for all a request knows it does not exist
 * yet); so is one below the oldest block whose state the chain's nodes keep (as probed); the rest
 * are looked up in the nodes' headers for their hash and time. Final headers (at least the chain's
 * finality depth below the index's head) never change, so they are kept and asked for once; a
 * header nearer the head is asked for on every request, since a reorg may replace it.
 */
export const makePastBlocks = (deps: PastBlocksDeps, capacity = FINAL_BLOCKS_KEPT) => {
  const finals = new Lru<string, PastBlock>(capacity);

  const find = async (
    chain: ChainConfig,
    nodes: PastBlockNodes,
    indexedHead: number,
    number: number,
  ): Promise<{ readonly block: PastBlock } | { readonly refused: PastBlockRefusal }> => {
    if (number > indexedHead)
      return {
        refused: {
          code: "BLOCK_NUMBER_AHEAD",
          message: `block_number ${number} is above the last block ${named(chain)} has indexed, ${indexedHead}: ask for block ${indexedHead} or lower.`,
        },
      };
    const stateFrom = nodes.capabilities().stateFrom;
    if (stateFrom !== undefined && number < stateFrom) return { refused: stateRefusal(chain, nodes, number) };
    const key = `${chain.chain_id}|${number}`;
    const kept = finals.get(key);
    if (kept !== undefined) return { block: kept };
    let header: RpcBlock<string> | null;
    try {
      header = await nodes.request<RpcBlock<string> | null>("eth_getBlockByNumber", [hex(number), false], {
        block: number,
      });
    } catch (error) {
      if (isHistoryRefusal(error)) return { refused: stateRefusal(chain, nodes, number, error) };
      throw error;
    }
    // No header at a height the index has passed: the node has dropped it, state and all.
    if (header === null || header === undefined) return { refused: stateRefusal(chain, nodes, number) };
    const block = { number, hash: header.hash, timestamp: Number.parseInt(header.timestamp, 16) };
    if (number <= indexedHead - chain.finality_depth) finals.set(key, block);
    return { block };
  };

  /**
   * The block at `number` on `chain`, as `find` names it, for a request: a refusal is a 400; a
   * chain with no client, not indexed yet, or whose nodes fail is a 503, as a chain that cannot be
   * read is when it is the only one asked for.
   */
  const at = (chain: ChainConfig, number: number): Effect.Effect<PastBlock, InvalidRequest | Unavailable> =>
    Effect.flatMap(
      Effect.tryPromise({
        try: async () => {
          const nodes = deps.nodes(chain.chain_id);
          if (nodes === undefined) throw new Error("no RPC client for this chain");
          const head = await deps.indexedHead(chain.chain_id);
          if (head === undefined) throw new Error("the chain is not indexed yet");
          return find(chain, nodes, head, number);
        },
        catch: (error) =>
          new Unavailable({
            code: "CHAINS_UNAVAILABLE",
            message: `Chain ${named(chain)} cannot be read right now (${firstLineOf(error)}); retry shortly.`,
          }),
      }),
      (found) =>
        "refused" in found ? Effect.fail(new InvalidRequest(found.refused)) : Effect.succeed(found.block),
    );

  /**
   * readEachChain's `refuse` for reads at `pinned` blocks: a pinned chain whose nodes refuse the
   * block as pruned history fails the request with a 400. Pinned by `block_number`, it names the
   * oldest block they keep (the probe's figure can be older than what the nodes keep now: pruning
   * moves on between probes). Pinned by a listing's `offset`, the client never chose that block:
   * the listing cannot go on as it began (a node keeping 128 blocks of state keeps 25 s of a
   * 200 ms chain), and the 400 says to start it again.
   */
  const refusal =
    (
      pinned: ReadonlyMap<number, BlockRef> | undefined,
      pinnedBy: "block_number" | "offset" = "block_number",
    ) =>
    (chain: ChainConfig, block: BlockRef, error: unknown): InvalidRequest | undefined => {
      const nodes = deps.nodes(chain.chain_id);
      if (pinned?.has(chain.chain_id) !== true || nodes === undefined || !isHistoryRefusal(error))
        return undefined;
      if (pinnedBy === "offset")
        return new InvalidRequest({
          code: "STALE_OFFSET",
          message: `${named(chain)}'s RPC nodes no longer keep the state at block ${block.number}, where this listing was read: start again without offset.`,
        });
      return new InvalidRequest(stateRefusal(chain, nodes, block.number, error));
    };

  return { find, at, refusal, lookups: () => ({ hits: finals.hits, misses: finals.misses }) } as const;
};

export type PastBlocks = ReturnType<typeof makePastBlocks>;
