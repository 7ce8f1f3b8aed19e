import type { DevnetChainSpec } from "./chainSpecs.js";
import type { ManifestChain, ManifestPendle } from "./DevnetManifest.js";
import type { DeployedContracts } from "./deployContracts.js";
import { EVERY_TYPE_ROLE, POSITION_ROLES, roleAddress, type WalletRole } from "./devAccounts.js";
import { holdsEveryType } from "./everyType/seedEveryType.js";
import type { SeededLending } from "./lending/SeededLending.js";
import type { SeededLiquidity } from "./positions/SeededLiquidityPosition.js";
import type { SeededPool } from "./SeededPool.js";
import { PAGING_TOKEN_COUNT } from "./seedPagingTokens.js";
import type { SeededPositions } from "./seedWallets.js";
import { tokenDecimals } from "./tokenDecimals.js";
import { DEPLOYED_TOKENS, type TokenSymbol } from "./tokenSpecs.js";
import type { SeededVaults } from "./vaults/SeededVaults.js";

/** What seeding one chain produced, before the node has URLs. */
export interface SeededChain {
  readonly spec: DevnetChainSpec;
  readonly contracts: DeployedContracts;
  readonly pools: readonly SeededPool[];
  readonly positions: SeededPositions;
  readonly liquidity: SeededLiquidity;
  /** Lending markets and positions of every lending seed (docs/devnet.md, "Lending markets"). */
  readonly lending: SeededLending;
  /** ERC-4626 vaults and the restaking stand-ins (docs/devnet.md, "Vaults and restaking"). */
  readonly vaults: SeededVaults;
  /** The Pendle V2 deployment and its holders (docs/devnet.md, "Pendle"); null where the chain has none. */
  readonly pendle: ManifestPendle | null;
  readonly headBlock: number;
  readonly headTimestamp: number;
}

const contractsRecord = (c: DeployedContracts): Record<string, string> => ({
  multicall3: c.multicall3,
  permit2: c.permit2,
  uniswap_v2_factory: c.uniswapV2.factory,
  uniswap_v2_router: c.uniswapV2.router,
  sushiswap_v2_factory: c.sushiswapV2.factory,
  sushiswap_v2_router: c.sushiswapV2.router,
  uniswap_v3_factory: c.uniswapV3.factory,
  uniswap_v3_position_manager: c.uniswapV3.positionManager,
  uniswap_v3_swap_router: c.uniswapV3.swapRouter,
  sushiswap_v3_factory: c.sushiswapV3.factory,
  sushiswap_v3_position_manager: c.sushiswapV3.positionManager,
  sushiswap_v3_swap_router: c.sushiswapV3.swapRouter,
  uniswap_v4_pool_manager: c.uniswapV4.poolManager,
  uniswap_v4_position_manager: c.uniswapV4.positionManager,
  uniswap_v4_state_view: c.uniswapV4.stateView,
  uniswap_v4_pool_swap_test: c.uniswapV4.poolSwapTest,
  erc721_collectible: c.collectible,
  erc1155_multi_token: c.multiToken,
  paging_token_factory: c.pagingTokenFactory,
});

/** A role's name in the manifest: `nftSender` -> `nft_sender`, `v2Lp` -> `v2_lp`. */
export const manifestRole = (role: WalletRole): string =>
  role.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const walletsRecord = (
  spec: DevnetChainSpec,
  lending: SeededLending,
  vaults: SeededVaults,
  pendle: ManifestPendle | null,
): Record<string, string> => ({
  whale: roleAddress("whale"),
  ...(spec.pagingWallet ? { paging: roleAddress("paging") } : {}),
  empty: roleAddress("empty"),
  v2_lp: roleAddress("v2Lp"),
  v3_lp: roleAddress("v3Lp"),
  v4_lp: roleAddress("v4Lp"),
  trader: roleAddress("trader"),
  deployer: roleAddress("deployer"),
  activity_a: roleAddress("activityA"),
  activity_b: roleAddress("activityB"),
  activity_c: roleAddress("activityC"),
  ...(spec.liquidityPositions
    ? Object.fromEntries(POSITION_ROLES.map((role) => [manifestRole(role), roleAddress(role)]))
    : {}),
  // Every wallet holding a lending position, whichever seed opened it.
  ...Object.fromEntries(lending.positions.map((position) => [position.wallet, position.owner])),
  ...(vaults.vaults.length > 0 ? { vault_holder: roleAddress("vaultHolder") } : {}),
  ...(holdsEveryType(spec) ? { every_type: roleAddress(EVERY_TYPE_ROLE) } : {}),
  ...(vaults.restaking === null
    ? {}
    : { restaker: roleAddress("restaker"), restake_operator: roleAddress("restakeOperator") }),
  ...(pendle === null ? {} : { pendle_holder: roleAddress("pendleHolder") }),
});

/** Contracts of the Pendle deployment, when the chain has one. */
const pendleContracts = (pendle: ManifestPendle | null): Record<string, string> =>
  pendle === null
    ? {}
    : {
        pendle_yield_contract_factory: pendle.yield_contract_factory,
        pendle_market_factory: pendle.market_factory,
        pendle_gauge_controller: pendle.gauge_controller,
        pendle_ve_pendle: pendle.ve_pendle,
        pendle_sy: pendle.sy,
      };

/** Contracts of the restaking stand-ins, when the chain has them. */
const restakingContracts = (vaults: SeededVaults): Record<string, string> =>
  vaults.restaking === null
    ? {}
    : {
        restake_strategy_manager: vaults.restaking.strategy_manager,
        restake_delegation_manager: vaults.restaking.delegation_manager,
      };

const tokenRole = (symbol: TokenSymbol): string =>
  symbol === "WETH"
    ? "wrapped_native"
    : (DEPLOYED_TOKENS.find((t) => t.symbol === symbol)?.role ?? "unknown");

/** The manifest entry of a seeded chain; URLs are filled in when a node serves it. */
export const chainManifest = (
  seeded: SeededChain,
  urls: { rpcUrl: string; wsUrl: string },
): ManifestChain => ({
  chain_id: seeded.spec.chainId,
  name: seeded.spec.name,
  rpc_url: urls.rpcUrl,
  ws_url: urls.wsUrl,
  tags: seeded.spec.tags,
  amm_start_block: seeded.contracts.ammStartBlock,
  seed_head_block: seeded.headBlock,
  seed_head_timestamp: seeded.headTimestamp,
  tokens: Object.fromEntries(
    (Object.entries(seeded.contracts.tokens) as [TokenSymbol, string][]).map(([symbol, address]) => [
      symbol,
      { address, decimals: tokenDecimals(symbol), role: tokenRole(symbol) },
    ]),
  ),
  paging_token_count: seeded.spec.pagingWallet ? PAGING_TOKEN_COUNT : 0,
  pools: seeded.pools.map((pool) => ({
    protocol: pool.protocol,
    kind: pool.kind,
    address: pool.address,
    pool_id: pool.poolId,
    token0: pool.token0,
    token1: pool.token1,
    symbol0: pool.symbol0,
    symbol1: pool.symbol1,
    fee: pool.fee,
    tick_spacing: pool.tickSpacing,
    hooks: pool.key?.hooks ?? null,
    purpose: pool.purpose,
  })),
  contracts: {
    ...contractsRecord(seeded.contracts),
    ...seeded.liquidity.contracts,
    ...restakingContracts(seeded.vaults),
    ...pendleContracts(seeded.pendle),
  },
  wallets: walletsRecord(seeded.spec, seeded.lending, seeded.vaults, seeded.pendle),
  positions: { v3: seeded.positions.v3.map(String), v4: seeded.positions.v4.map(String) },
  liquidity_positions: seeded.liquidity.positions.map((position) => ({
    kind: position.kind,
    protocol: position.protocol,
    wallet: manifestRole(position.wallet),
    owner: roleAddress(position.wallet),
    token_id: position.tokenId === null ? null : String(position.tokenId),
    pool: position.pool,
    position_manager: position.positionManager,
    tick_lower: position.tickLower,
    tick_upper: position.tickUpper,
    purpose: position.purpose,
  })),
  lending_markets: [...seeded.lending.markets],
  lending_positions: [...seeded.lending.positions],
  vaults: [...seeded.vaults.vaults],
  restaking: seeded.vaults.restaking,
  pendle: seeded.pendle,
});
