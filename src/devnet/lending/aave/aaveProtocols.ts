import { ProtocolConfig } from "../../../chains/ChainsConfig.js";
import type { ManifestChain } from "../../DevnetManifest.js";

const contract = (name: string, contracts: Readonly<Record<string, string>>): string => {
  const address = contracts[name];
  if (address === undefined) throw new Error(`devnet Aave market has no ${name}`);
  return address.toLowerCase();
};

/**
 * Registry entries of a chain's Aave markets (from the manifest): kind `aave_v2` / `aave_v3` at the lending
 * pool, with the configurator (whose `ReserveInitialized` events list the reserves) and the data provider.
 */
export const aaveProtocols = (chain: ManifestChain): ProtocolConfig[] =>
  chain.lending_markets.flatMap((market) =>
    market.kind === "aave_v2" || market.kind === "aave_v3"
      ? [
          new ProtocolConfig({
            protocol: market.protocol,
            kind: market.kind,
            address: market.address.toLowerCase(),
            configurator: contract("configurator", market.contracts),
            data_provider: contract("data_provider", market.contracts),
          }),
        ]
      : [],
  );
