import { parseAbi } from "viem";

/**
 * The Algebra Integral functions the devnet calls (`@cryptoalgebra/integral-core` 1.2.10 and
 * `@cryptoalgebra/integral-periphery` 1.2.4). They differ from Uniswap V3 where Algebra differs: pools are
 * keyed by a `deployer` (zero for the factory's own pools) instead of a fee tier, and `globalState()`
 * replaces `slot0()`.
 */

export const algebraFactoryAbi = parseAbi([
  "constructor(address poolDeployer)",
  "function poolByPair(address tokenA, address tokenB) view returns (address pool)",
]);

export const algebraPoolDeployerAbi = parseAbi(["constructor(address factory)"]);

export const algebraPoolAbi = parseAbi([
  "function globalState() view returns (uint160 price, int24 tick, uint16 lastFee, uint8 pluginConfig, uint16 communityFee, bool unlocked)",
  "function tickSpacing() view returns (int24)",
]);

export const algebraPositionManagerAbi = parseAbi([
  "constructor(address factory, address wNativeToken, address tokenDescriptor, address poolDeployer)",
  "struct MintParams { address token0; address token1; address deployer; int24 tickLower; int24 tickUpper; uint256 amount0Desired; uint256 amount1Desired; uint256 amount0Min; uint256 amount1Min; address recipient; uint256 deadline; }",
  "function createAndInitializePoolIfNecessary(address token0, address token1, address deployer, uint160 sqrtPriceX96, bytes data) payable returns (address pool)",
  "function mint(MintParams params) payable returns (uint256 tokenId, uint128 liquidity, uint256 amount0, uint256 amount1)",
  "function positions(uint256 tokenId) view returns (uint88 nonce, address operator, address token0, address token1, address deployer, int24 tickLower, int24 tickUpper, uint128 liquidity, uint256 feeGrowthInside0LastX128, uint256 feeGrowthInside1LastX128, uint128 tokensOwed0, uint128 tokensOwed1)",
  "function ownerOf(uint256 tokenId) view returns (address)",
  "event IncreaseLiquidity(uint256 indexed tokenId, uint128 liquidityDesired, uint128 actualLiquidity, uint256 amount0, uint256 amount1, address pool)",
]);

export const algebraSwapRouterAbi = parseAbi([
  "constructor(address factory, address wNativeToken, address poolDeployer)",
  "struct ExactInputSingleParams { address tokenIn; address tokenOut; address deployer; address recipient; uint256 deadline; uint256 amountIn; uint256 amountOutMinimum; uint160 limitSqrtPrice; }",
  "function exactInputSingle(ExactInputSingleParams params) payable returns (uint256 amountOut)",
]);
