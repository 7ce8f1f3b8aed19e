import { Effect, Either } from "effect";
import type { ChainConfig } from "../chains/ChainsConfig.js";
import { chainOfBlockNumber } from "../chains/chainOfBlockNumber.js";
import { parseBlockNumber } from "../chains/parseBlockNumber.js";
import type { PastBlock } from "../chains/pastBlocks.js";
import type { SelectedChains } from "../chains/selectChains.js";
import { InvalidRequest, type Unavailable } from "../contracts/ApiError.js";

/** How a service names the block at a height (Balances and Positions `pastBlock`). */
export type PastBlockOf = (
  chain: ChainConfig,
  number: number,
) => Effect.Effect<PastBlock, InvalidRequest | Unavailable>;

/** A request's `block_number`, checked: the height, and the one chain it is a height on (none when unsupported). */
export interface AskedHeight {
  readonly number: number;
  readonly chain: ChainConfig | undefined;
}

/**
 * `block_number` and the chains a request names, checked together before anything is read: a
 * malformed height (parseBlockNumber.ts) or a height with other than one chain
 * (chainOfBlockNumber.ts) is a 400. Undefined when the request gives no `block_number`.
 */
export const askedHeight = (
  raw: string | undefined,
  selected: SelectedChains,
  chainIdsGiven: boolean,
): Effect.Effect<AskedHeight | undefined, InvalidRequest> => {
  const number = parseBlockNumber(raw);
  if (Either.isLeft(number)) return Effect.fail(new InvalidRequest(number.left));
  if (number.right === undefined) return Effect.succeed(undefined);
  const chain = chainOfBlockNumber(selected, chainIdsGiven);
  if (Either.isLeft(chain)) return Effect.fail(new InvalidRequest(chain.left));
  return Effect.succeed({ number: number.right, chain: chain.right });
};

/** The block a request is answered at, on its one chain. */
export interface AskedBlock {
  readonly chain: ChainConfig;
  readonly block: PastBlock;
}

/** The block of a checked height, looked up by the service that reads it; undefined when there is none to read. */
export const askedBlock = (
  height: AskedHeight | undefined,
  pastBlock: PastBlockOf,
): Effect.Effect<AskedBlock | undefined, InvalidRequest | Unavailable> => {
  const chain = height?.chain;
  if (height === undefined || chain === undefined) return Effect.succeed(undefined);
  return Effect.map(pastBlock(chain, height.number), (block) => ({ chain, block }));
};

/** Reads pinned to the asked block, for the services' `pinned` option. */
export const pinnedTo = (asked: AskedBlock): ReadonlyMap<number, PastBlock> =>
  new Map([[asked.chain.chain_id, asked.block]]);

/** The response fields that say which block an answer is as of: its height and time (ISO 8601, UTC). */
export const blockFields = ({ block }: AskedBlock) => ({
  block_number: block.number,
  block_time: new Date(block.timestamp * 1000).toISOString(),
});
