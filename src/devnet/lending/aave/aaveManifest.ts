import { manifestRole } from "../../chainManifest.js";
import type { ManifestLendingMarket, ManifestLendingPosition } from "../../DevnetManifest.js";
import { roleAddress } from "../../devAccounts.js";
import type { AaveDeployment, MinedAaveMarket } from "./AaveDeployment.js";
import { AAVE_RESERVE_SYMBOLS, type AaveReserveSymbol } from "./aaveReserves.js";
import type { AaveWalletPlan } from "./aaveWalletPlans.js";

/** The registry kind and the protocol name the service reports for each Aave design. */
export const AAVE_PROTOCOLS = {
  v2: { kind: "aave_v2", protocol: "AaveV2" },
  v3: { kind: "aave_v3", protocol: "AaveV3" },
} as const;

/** Contract addresses in the manifest are lower-case, as the devnet's other contracts are. */
const lower = (address: string): string => address.toLowerCase();

/** A deployed Aave market as the manifest lists it: the pool is the registry address. */
export const aaveManifestMarket = ({
  deployment: market,
  tokens,
}: MinedAaveMarket): ManifestLendingMarket => ({
  ...AAVE_PROTOCOLS[market.version],
  address: lower(market.pool),
  contracts: Object.fromEntries(
    Object.entries({
      addresses_provider: market.addressesProvider,
      pool: market.pool,
      configurator: market.configurator,
      data_provider: market.dataProvider,
      oracle: market.oracle,
      ...market.extra,
    }).map(([name, address]) => [name, lower(address)]),
  ),
  assets: AAVE_RESERVE_SYMBOLS.map((symbol) => ({
    symbol,
    asset: lower(market.reserves[symbol].asset),
    supply_token: lower(tokens[symbol].aToken),
    debt_token: lower(tokens[symbol].variableDebtToken),
  })),
});

/** The positions a wallet plan opened in a market: one per supplied asset, one per borrowed asset. */
export const aaveManifestPositions = (
  market: AaveDeployment,
  plan: AaveWalletPlan,
): ManifestLendingPosition[] => {
  const position = (symbol: AaveReserveSymbol, side: "supply" | "debt"): ManifestLendingPosition => ({
    ...AAVE_PROTOCOLS[market.version],
    wallet: manifestRole(plan.role),
    owner: roleAddress(plan.role),
    market: lower(market.pool),
    asset: lower(market.reserves[symbol].asset),
    side,
    purpose: plan.purpose,
  });
  return [
    ...(Object.keys(plan.supply) as AaveReserveSymbol[]).map((symbol) => position(symbol, "supply")),
    ...(Object.keys(plan.borrow) as AaveReserveSymbol[]).map((symbol) => position(symbol, "debt")),
  ];
};
