import type { Address } from "viem";
import type { AaveReserveSymbol } from "./aaveReserves.js";

/** Which Aave design a deployment is: the registry kind and the protocol name the service reports. */
export type AaveVersion = "v2" | "v3";

/** One listed reserve: the underlying and the price feed the oracle reads for it. */
export interface AaveReserve {
  readonly asset: Address;
  /** Null for WETH on V2: its oracle prices WETH at exactly 1 ETH. */
  readonly aggregator: Address | null;
}

/** An Aave market queued for deployment on one devnet chain (addresses known before it is mined). */
export interface AaveDeployment {
  readonly version: AaveVersion;
  readonly addressesProvider: Address;
  /** The lending pool (proxy): the registry address. */
  readonly pool: Address;
  /** The configurator (proxy), whose `ReserveInitialized` events list the reserves. */
  readonly configurator: Address;
  readonly dataProvider: Address;
  readonly oracle: Address;
  /** V3: ACLManager; V2: collateral manager and lending rate oracle; by manifest name. */
  readonly extra: Readonly<Record<string, Address>>;
  readonly reserves: Readonly<Record<AaveReserveSymbol, AaveReserve>>;
}

/** The tokens the configurator created for a reserve (proxies), known once the deployment is mined. */
export interface AaveReserveTokens {
  readonly aToken: Address;
  readonly variableDebtToken: Address;
}

/** A deployment once mined, with each reserve's tokens as its data provider reports them. */
export interface MinedAaveMarket {
  readonly deployment: AaveDeployment;
  readonly tokens: Readonly<Record<AaveReserveSymbol, AaveReserveTokens>>;
}
