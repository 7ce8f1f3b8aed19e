import { ProtocolConfig } from "../../chains/ChainsConfig.js";
import type { ManifestChain } from "../DevnetManifest.js";
import { CTOKEN_FORK } from "./seedCompoundLending.js";

/**
 * Registry entries of a chain's cToken and Comet markets (from the manifest): kind `ctoken` at the
 * comptroller, with `fork` for the second deployment of the design, and kind `comet` at the market.
 */
export const compoundProtocols = (chain: ManifestChain): ProtocolConfig[] =>
  chain.lending_markets.flatMap((market) =>
    market.kind === "ctoken" || market.kind === "comet"
      ? [
          new ProtocolConfig({
            protocol: market.protocol,
            kind: market.kind,
            address: market.address.toLowerCase(),
            ...(market.kind === "ctoken" && market.protocol === CTOKEN_FORK.protocol ? { fork: true } : {}),
          }),
        ]
      : [],
  );
