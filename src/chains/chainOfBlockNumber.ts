import { Either } from "effect";
import type { ChainConfig } from "./ChainsConfig.js";
import type { SelectedChains } from "./selectChains.js";

/** Why a `block_number` request names the wrong number of chains: a 400. */
export interface BlockNumberChainsError {
  readonly code: "BLOCK_NUMBER_NEEDS_ONE_CHAIN";
  readonly message: string;
}

/**
 * The chain a `block_number` request is read on. A height means one block on one chain only (block
 * 20,000,000 is months apart on two chains), so the request must name exactly one chain in
 * `chain_ids`: omitted (the default chains), a tag or a list of several is a 400 rather than one
 * height applied to chains it does not describe. A single id the endpoint does not serve counts as
 * that one chain: it is answered, as without `block_number`, with no entries and the
 * UNSUPPORTED_CHAIN_IDS warning (undefined here).
 */
export const chainOfBlockNumber = (
  selected: Pick<SelectedChains, "chains" | "unsupported">,
  chainIdsGiven: boolean,
): Either.Either<ChainConfig | undefined, BlockNumberChainsError> => {
  const named = selected.chains.length + selected.unsupported.length;
  if (chainIdsGiven && named === 1) return Either.right(selected.chains[0]);
  const ids = [...selected.chains.map((c) => c.chain_id), ...selected.unsupported].sort((a, b) => a - b);
  const what = chainIdsGiven
    ? `it names ${named === 0 ? "none" : `${named}: ${ids.join(", ")}`}`
    : `without chain_ids it means the ${named} default chain${named === 1 ? "" : "s"}`;
  return Either.left({
    code: "BLOCK_NUMBER_NEEDS_ONE_CHAIN",
    message: `block_number is a height on one chain: give chain_ids with exactly one numeric chain id (${what}).`,
  });
};
