import { Effect, Either } from "effect";
import { InvalidRequest } from "../contracts/ApiError.js";
import type { Warning } from "../contracts/Common.js";
import type { ChainRegistry } from "./ChainRegistry.js";
import type { ChainConfig, EndpointFamily } from "./ChainsConfig.js";
import { parseChainIds } from "./parseChainIds.js";
import { unsupportedChainsWarning } from "./unsupportedChainsWarning.js";

/** The chains a request is served on, and the warnings it gets for the ids it asked for in vain. */
export interface SelectedChains {
  readonly chains: ReadonlyArray<ChainConfig>;
  /** Numeric ids asked for that this endpoint does not serve. */
  readonly unsupported: ReadonlyArray<number>;
  /** The UNSUPPORTED_CHAIN_IDS warning when there are such ids (spec 2.4, 7). */
  readonly warnings: ReadonlyArray<Warning>;
}

/**
 * `chain_ids` for an endpoint family: ids and tags, the `default` chains serving the family when
 * omitted, a warning (not an error) for ids it does not serve, a 400 INVALID_CHAIN_IDS for names
 * and malformed values. `what` names the data in the warning ("Balances", "Positions").
 */
export const selectChains = (
  registry: ChainRegistry,
  family: EndpointFamily,
  raw: string | undefined,
  what: string,
  publicUrl: string,
): Effect.Effect<SelectedChains, InvalidRequest> => {
  const selection = parseChainIds(registry, family, raw);
  if (Either.isLeft(selection))
    return Effect.fail(new InvalidRequest({ code: "INVALID_CHAIN_IDS", message: selection.left.message }));
  const { chains, unsupported } = selection.right;
  const warning = unsupportedChainsWarning(unsupported, what, publicUrl);
  return Effect.succeed({ chains, unsupported, warnings: warning === undefined ? [] : [warning] });
};
