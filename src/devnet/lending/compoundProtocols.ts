import { ProtocolConfig } from "../../chains/ChainsConfig.js";
import type { ManifestChain } from "../DevnetManifest.js";
import { CTOKEN_FORK } from "./seedCompoundLending.js";

/**
 * Blocks per year that the cToken markets' JumpRateModel assumes (3-second blocks): its per-block rates
 * are yearly rates divided by this, so the service's APY multiplies them back by the same figure.
 */
const CTOKEN_BLOCKS_PER_YEAR = (60 * 60 * 24 * 365) / 3;

/**
 * Registry entries of a chain's cToken and Comet markets (from the manifest): kind `ctoken` at the
 * comptroller, with `fork` for the second deployment of the design and the rate model's blocks per year,
 * and kind `comet` at the market.
 */
export const compoundProtocols = (chain: ManifestChain): ProtocolConfig[] =>
  chain.lending_markets.flatMap((market) =>
    market.kind === "ctoken" || market.kind === "comet"
      ? [
          new ProtocolConfig({
            protocol: market.protocol,
            kind: market.kind,
            address: market.address.toLowerCase(),
            ...(market.kind === "ctoken" ? { blocks_per_year: CTOKEN_BLOCKS_PER_YEAR } : {}),
            ...(market.kind === "ctoken" && market.protocol === CTOKEN_FORK.protocol ? { fork: true } : {}),
          }),
        ]
      : [],
  );
