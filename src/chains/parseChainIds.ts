import { Either } from "effect";
import type { ChainRegistry } from "./ChainRegistry.js";
import type { ChainConfig, EndpointFamily } from "./ChainsConfig.js";

/** The outcome of a valid `chain_ids` value: chains to serve and ids to warn about. */
export interface ChainSelection {
  /** Chains to serve, ascending by id, each once. */
  readonly chains: ReadonlyArray<ChainConfig>;
  /** Numeric ids that were asked for but are not served for this endpoint, ascending, each once. */
  readonly unsupported: ReadonlyArray<number>;
}

/** Why a `chain_ids` value is rejected; `message` is a sentence for the 400 body. */
export interface InvalidChainIds {
  readonly message: string;
}

/** Upper bound on the raw parameter, so that a hostile value costs nothing to reject. */
export const MAX_CHAIN_IDS_LENGTH = 2048;

const NUMERIC = /^[0-9]+$/;
const WORD = /^[a-z][a-z0-9_]*$/;

const reject = (message: string): Either.Either<never, InvalidChainIds> => Either.left({ message });

/**
 * Parses `chain_ids`: numeric chain ids and/or tags, one value or comma-separated,
 * tags OR-ed together. Chain names and anything else are rejected; numeric ids the
 * endpoint does not serve are reported in `unsupported` (a warning, not an error).
 * `undefined` (parameter omitted) selects the chains tagged `default` that serve
 * the endpoint.
 */
export const parseChainIds = (
  registry: ChainRegistry,
  family: EndpointFamily,
  raw: string | undefined,
): Either.Either<ChainSelection, InvalidChainIds> => {
  const served = (chain: ChainConfig) => registry.supports(chain, family);
  if (raw === undefined) {
    return Either.right({
      chains: registry.chains.filter((chain) => chain.tags.includes("default") && served(chain)),
      unsupported: [],
    });
  }
  if (raw.length > MAX_CHAIN_IDS_LENGTH) {
    return reject(`chain_ids is longer than ${MAX_CHAIN_IDS_LENGTH} characters.`);
  }
  const items = raw.split(",").map((item) => item.trim());
  if (items.some((item) => item.length === 0)) {
    return reject("chain_ids must be numeric chain ids or tags separated by commas, with no empty items.");
  }
  const selected = new Set<number>();
  const unsupported = new Set<number>();
  for (const item of items) {
    if (NUMERIC.test(item)) {
      const id = Number(item);
      if (!Number.isSafeInteger(id) || id === 0)
        return reject(`chain_ids contains an invalid chain id "${item}".`);
      const chain = registry.byId.get(id);
      if (chain !== undefined && served(chain)) selected.add(id);
      else unsupported.add(id);
      continue;
    }
    const word = item.toLowerCase();
    const named = WORD.test(word) ? registry.byName.get(word) : undefined;
    if (named !== undefined && !registry.tags.has(word)) {
      return reject(
        `chain_ids does not accept chain names: use the numeric id ${named.chain_id} for "${item}", or a tag.`,
      );
    }
    if (!WORD.test(word) || !registry.tags.has(word)) {
      return reject(
        `chain_ids contains "${truncate(item)}", which is neither a numeric chain id nor a known tag (${[...registry.tags].join(", ")}).`,
      );
    }
    for (const chain of registry.chains)
      if (chain.tags.includes(word) && served(chain)) selected.add(chain.chain_id);
  }
  return Either.right({
    chains: registry.chains.filter((chain) => selected.has(chain.chain_id)),
    unsupported: [...unsupported].sort((a, b) => a - b),
  });
};

const truncate = (value: string) => (value.length > 40 ? `${value.slice(0, 40)}…` : value);
