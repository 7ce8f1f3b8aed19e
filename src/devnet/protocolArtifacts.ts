import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Hex } from "viem";

const require = createRequire(import.meta.url);

/** npm artifact paths of the protocol contracts we deploy, exactly as their packages publish them. */
const ARTIFACT_PATHS = {
  WETH9: "@uniswap/v2-periphery/build/WETH9.json",
  UniswapV2Factory: "@uniswap/v2-core/build/UniswapV2Factory.json",
  UniswapV2Router02: "@uniswap/v2-periphery/build/UniswapV2Router02.json",
  UniswapV3Factory: "@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
  NonfungiblePositionManager:
    "@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  SwapRouter: "@uniswap/v3-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json",
  PoolManager: "@uniswap/v4-core/out/PoolManager.sol/PoolManager.json",
  PoolSwapTest: "@uniswap/v4-core/out/PoolSwapTest.sol/PoolSwapTest.json",
  PositionManager: "@uniswap/v4-periphery/foundry-out/PositionManager.sol/PositionManager.json",
  StateView: "@uniswap/v4-periphery/foundry-out/StateView.sol/StateView.json",
  AlgebraFactory: "@cryptoalgebra/integral-core/artifacts/contracts/AlgebraFactory.sol/AlgebraFactory.json",
  AlgebraPoolDeployer:
    "@cryptoalgebra/integral-core/artifacts/contracts/AlgebraPoolDeployer.sol/AlgebraPoolDeployer.json",
  AlgebraPositionManager:
    "@cryptoalgebra/integral-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json",
  AlgebraSwapRouter: "@cryptoalgebra/integral-periphery/artifacts/contracts/SwapRouter.sol/SwapRouter.json",
  VenusComptroller:
    "@venusprotocol/venus-protocol/artifacts/contracts/Comptroller/Comptroller.sol/Comptroller.json",
  VenusUnitroller:
    "@venusprotocol/venus-protocol/artifacts/contracts/Comptroller/Unitroller.sol/Unitroller.json",
  VenusComptrollerLens:
    "@venusprotocol/venus-protocol/artifacts/contracts/Lens/ComptrollerLens.sol/ComptrollerLens.json",
  VenusVBep20Immutable:
    "@venusprotocol/venus-protocol/artifacts/contracts/Tokens/VTokens/VBep20Immutable.sol/VBep20Immutable.json",
  VenusJumpRateModel:
    "@venusprotocol/venus-protocol/artifacts/contracts/InterestRateModels/JumpRateModel.sol/JumpRateModel.json",
  VenusSimplePriceOracle:
    "@venusprotocol/venus-protocol/artifacts/contracts/test/SimplePriceOracle.sol/SimplePriceOracle.json",
} as const;

/** A protocol contract we deploy from its npm artifact. */
export type ProtocolContract = keyof typeof ARTIFACT_PATHS;

/**
 * Creation bytecode from a protocol artifact. The three artifact layouts differ: Waffle (`bytecode` without
 * 0x), Hardhat (`bytecode` with 0x) and Foundry (`bytecode.object`).
 */
export const protocolBytecode = (name: ProtocolContract): Hex => {
  const artifact = require(ARTIFACT_PATHS[name]) as { bytecode: string | { object: string } };
  const code = typeof artifact.bytecode === "string" ? artifact.bytecode : artifact.bytecode.object;
  return `0x${code.replace(/^0x/, "")}`;
};

/** Canonical Permit2 address; the V4 PositionManager pulls tokens through it. */
export const PERMIT2_ADDRESS = "0x000000000022D473030F116dDEE9F6B43aC78BA3" as const;

/**
 * Permit2's deployed runtime code, taken from the `DeployPermit2` helper that v4-periphery ships in
 * `lib/permit2`: Uniswap publishes no Permit2 artifact on npm, and this is the code their own tests etch at
 * the canonical address.
 */
export const permit2RuntimeCode = (): Hex => {
  const source = readFileSync(
    require.resolve("@uniswap/v4-periphery/lib/permit2/test/utils/DeployPermit2.sol"),
    "utf8",
  );
  const match = /hex"([0-9a-f]+)"/.exec(source);
  if (match?.[1] === undefined) throw new Error("Permit2 bytecode not found in @uniswap/v4-periphery");
  return `0x${match[1]}`;
};
