import { Effect } from "effect";
import { InvalidRequest, Unavailable } from "../contracts/ApiError.js";
import { firstLineOf } from "../lib/errorReason.js";
import { within } from "../lib/within.js";
import type { ChainConfig } from "./ChainsConfig.js";
import type { ChainRpc } from "./rpc/ChainRpc.js";
import { ChainRpcError } from "./rpc/ChainRpcError.js";

/** One chain's successful read, at the block it was read at. */
export interface ChainRead<A> {
  readonly chain: ChainConfig;
  readonly block: number;
  readonly value: A;
}

/** A chain that could not be read, as the `errors.chain_errors` of a response shows it. */
export interface ChainFailure {
  readonly chain_id: number;
  readonly description: string;
}

/**
 * The block a chain is read at: its number, and its hash when known (the index's checkpoint), so a
 * read kept for a block is not reused for another block at the same height after a reorg.
 */
export interface BlockRef {
  readonly number: number;
  readonly hash?: string;
}

/** A cache key part for a block: its hash when known. */
export const blockKey = (block: BlockRef): string =>
  block.hash === undefined ? String(block.number) : `${block.number}:${block.hash}`;

export interface EachChainRead<A> {
  readonly reads: ReadonlyArray<ChainRead<A>>;
  readonly failures: ReadonlyArray<ChainFailure>;
}

/**
 * Where to read again when `error` says the node lacks `block`, or nothing (any other failure
 * stands). The index can stand on a block the node no longer has: after a reorg to a shorter
 * branch its number is above the node's head, and after any reorg its hash (reads name the
 * checkpoint by hash) is gone until the index follows. Either way the node's canonical block at
 * that height, or its head if lower, is the answer it can give.
 */
const nodeBehind = async (
  error: unknown,
  block: BlockRef,
  chain: ChainConfig,
  nodeHead: ((chain: ChainConfig) => Promise<number | undefined>) | undefined,
): Promise<number | undefined> => {
  if (nodeHead === undefined || !(error instanceof ChainRpcError) || error.reason !== "HistoryUnavailable")
    return undefined;
  const head = await nodeHead(chain).catch(() => undefined);
  if (head === undefined) return undefined;
  if (head < block.number) return head;
  return block.hash === undefined ? undefined : block.number;
};

/** A chain's head as its nodes say now (for `nodeHead`), or nothing when none answers. */
export const headOfNodes = async (client: ChainRpc | undefined): Promise<number | undefined> => {
  if (client === undefined) return undefined;
  const hex = await client.request<string>("eth_blockNumber", [], { head: true });
  const head = Number.parseInt(hex, 16);
  return Number.isSafeInteger(head) ? head : undefined;
};

/** The first line of a failure, cut short: node errors can be pages long and carry URLs. */
/**
 * How long one chain's read may take within a request the gateway gives up on after
 * `requestTimeoutMs`: the rest leaves time to answer with the chains that were read.
 */
export const chainReadDeadline = (requestTimeoutMs: number): number =>
  Math.max(1_000, Math.floor(requestTimeoutMs * 0.7));

/**
 * Reads every chain in parallel at the block each is pinned to, or else at the block its index
 * has reached, so one chain's slow or failing node neither delays nor fails the others: a chain
 * that fails, or has not answered within `deadlineMs`, becomes a failure in the answer. When every
 * chain fails the request is a 503 naming them. `what` names the data in failure descriptions
 * ("Balances", "Positions").
 */
export const readEachChain = <A>(options: {
  readonly chains: ReadonlyArray<ChainConfig>;
  readonly blockOf: (chain: ChainConfig) => Promise<BlockRef | undefined>;
  readonly read: (chain: ChainConfig, block: BlockRef) => Promise<A>;
  readonly what: string;
  readonly deadlineMs: number;
  /**
   * The node's own head, asked when a read fails because the node lacks the block (a reorg the
   * index has not followed yet, an endpoint that lags): the read is then made at the node's
   * canonical block of that height, or its head if lower, rather than failing the chain.
   */
  readonly nodeHead?: (chain: ChainConfig) => Promise<number | undefined>;
  /**
   * A failure that is the request's own, not the chain's: the whole request fails with this 400
   * rather than naming the chain in `errors` (a block asked for by height whose state the nodes no
   * longer keep).
   */
  readonly refuse?: (chain: ChainConfig, block: BlockRef, error: unknown) => InvalidRequest | undefined;
}): Effect.Effect<EachChainRead<A>, Unavailable | InvalidRequest> =>
  Effect.gen(function* () {
    const settled = yield* Effect.promise(() =>
      Promise.allSettled(
        options.chains.map(async (chain) => {
          const block = await options.blockOf(chain);
          if (block === undefined) throw new Error("the chain is not indexed yet");
          const readAt = (at: BlockRef) =>
            within(
              options.read(chain, at).then((value) => ({ chain, block: at.number, value })),
              options.deadlineMs,
              () =>
                new Error(
                  `its RPC nodes did not answer within ${Math.round(options.deadlineMs / 100) / 10} s`,
                ),
            );
          try {
            return await readAt(block);
          } catch (error) {
            const refused = options.refuse?.(chain, block, error);
            if (refused !== undefined) throw refused;
            const behind = await nodeBehind(error, block, chain, options.nodeHead);
            if (behind === undefined) throw error;
            return await readAt({ number: behind });
          }
        }),
      ),
    );
    const refused = settled.find(
      (result): result is PromiseRejectedResult =>
        result.status === "rejected" && result.reason instanceof InvalidRequest,
    );
    if (refused !== undefined) return yield* Effect.fail(refused.reason as InvalidRequest);
    const reads: Array<ChainRead<A>> = [];
    const failures: Array<ChainFailure> = [];
    settled.forEach((result, i) => {
      if (result.status === "fulfilled") reads.push(result.value);
      else
        failures.push({
          chain_id: options.chains[i]!.chain_id,
          description: `${options.what} could not be read: ${firstLineOf(result.reason)}`,
        });
    });
    if (options.chains.length > 0 && reads.length === 0) {
      const named = options.chains.map((chain) => `${chain.name} (${chain.chain_id})`).join(", ");
      const first = failures[0]!.description.replace(/^[^:]*: /, "");
      return yield* new Unavailable({
        code: "CHAINS_UNAVAILABLE",
        message: `${options.chains.length === 1 ? "Chain" : "Chains"} ${named} cannot be read right now (${first}); retry shortly.`,
      });
    }
    return { reads, failures };
  });

/** The `errors` member of a response with failed chains, or nothing when every chain answered. */
export const chainErrors = (failures: ReadonlyArray<ChainFailure>, what: string) =>
  failures.length === 0
    ? {}
    : {
        errors: {
          error_message: `Some chains could not be read; their ${what.toLowerCase()} are missing.`,
          chain_errors: failures,
        },
      };
