import {
  type Address,
  createPublicClient,
  type Hex,
  http,
  maxUint128,
  numberToHex,
  type PublicClient,
  parseAbi,
} from "viem";
import type {
  DevnetManifest,
  ManifestChain,
  ManifestLiquidityPosition,
} from "../../../src/devnet/DevnetManifest.js";

/**
 * Independent reads of the seeded liquidity positions, straight from the contracts' public interfaces
 * (ABIs written out here, not taken from the seed code), for the devnet's position tests.
 */

export const abi = parseAbi([
  "function ownerOf(uint256) view returns (address)",
  "function balanceOf(address) view returns (uint256)",
  "function factory() view returns (address)",
  "function token0() view returns (address)",
  "function token1() view returns (address)",
  "function fee() view returns (uint24)",
  "function getPool(address, address, uint24) view returns (address)",
  "function slot0() view returns (uint160, int24, uint16, uint16, uint16, uint8, bool)",
  "function positions(uint256) view returns (uint96, address, address, address, uint24, int24, int24, uint128, uint256, uint256, uint128, uint128)",
  "struct CollectParams { uint256 tokenId; address recipient; uint128 amount0Max; uint128 amount1Max; }",
  "function collect(CollectParams) payable returns (uint256, uint256)",
  "struct PoolKey { address currency0; address currency1; uint24 fee; int24 tickSpacing; address hooks; }",
  "function getPoolAndPositionInfo(uint256) view returns (PoolKey, uint256)",
  "function getPositionLiquidity(uint256) view returns (uint128)",
  "function getSlot0(bytes32) view returns (uint160, int24, uint24, uint24)",
  "function getPositionInfo(bytes32, address, int24, int24, bytes32) view returns (uint128, uint256, uint256)",
  "function getFeeGrowthInside(bytes32, int24, int24) view returns (uint256, uint256)",
  "function swapCount(bytes32) view returns (uint256)",
  "function globalState() view returns (uint160, int24, uint16, uint8, uint16, bool)",
  "function poolByPair(address, address) view returns (address)",
  "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
]);

/** The Algebra position manager's `positions`: a `deployer` where Uniswap V3 has the fee. */
export const algebraPositionsAbi = parseAbi([
  "function positions(uint256) view returns (uint88, address, address, address, address, int24, int24, uint128, uint256, uint256, uint128, uint128)",
]);

/** The chains where the seed opened liquidity positions. */
export const withPositions = (manifest: DevnetManifest): ManifestChain[] =>
  manifest.chains
    .filter((c) => c.liquidity_positions.length > 0)
    // The liquidity seed's own positions: `every_type`'s have their test (positions/everyType.test.ts).
    .map((c) => ({
      ...c,
      liquidity_positions: c.liquidity_positions.filter((p) => p.purpose !== "every_type"),
    }));

/** A chain's seeded positions of one kind. */
export const ofKind = (chain: ManifestChain, kind: ManifestLiquidityPosition["kind"]) =>
  chain.liquidity_positions.filter((p) => p.kind === kind);

/** A position's NFT id as a bigint. */
export const id = (p: ManifestLiquidityPosition): bigint => BigInt(p.token_id!);

export const clientFor = (chain: ManifestChain): PublicClient =>
  createPublicClient({ transport: http(chain.rpc_url) }) as PublicClient;

/** Where the pool's current tick sits relative to [lower, upper), as Uniswap counts "in range". */
export const rangeStatus = (tick: number, lower: number, upper: number) =>
  tick < lower ? "below_range" : tick >= upper ? "above_range" : "in_range";

/**
 * Uncollected fees of a V3-design NFT (Uniswap V3 or Algebra): an eth_call of `collect(tokenId, owner,
 * max, max)` from the owner, which settles fees into tokensOwed and returns everything collectable.
 */
export const collectable = async (client: PublicClient, p: ManifestLiquidityPosition) => {
  const { result } = await client.simulateContract({
    account: p.owner as Address,
    address: p.position_manager as Address,
    abi,
    functionName: "collect",
    args: [
      {
        tokenId: BigInt(p.token_id!),
        recipient: p.owner as Address,
        amount0Max: maxUint128,
        amount1Max: maxUint128,
      },
    ],
  });
  return result;
};

/** The signed 24-bit integer at bit `offset` of a V4 PositionInfo word. */
export const int24At = (info: bigint, offset: number): number => {
  const raw = Number((info >> BigInt(offset)) & 0xffffffn);
  return raw >= 0x800000 ? raw - 0x1000000 : raw;
};

const Q128 = 1n << 128n;
const U256 = 1n << 256n;

/**
 * Uncollected fees of a V4 position: liquidity × (fee growth inside now − at the last update) / 2^128,
 * with the subtraction modulo 2^256, read through StateView. PositionManager owns every position in the
 * PoolManager, with the token id as salt.
 */
export const v4Fees = async (
  client: PublicClient,
  chain: ManifestChain,
  p: ManifestLiquidityPosition,
): Promise<readonly [bigint, bigint]> => {
  const stateView = chain.contracts.uniswap_v4_state_view as Address;
  const poolId = p.pool as Hex;
  const [liquidity, last0, last1] = await client.readContract({
    address: stateView,
    abi,
    functionName: "getPositionInfo",
    args: [
      poolId,
      p.position_manager as Address,
      p.tick_lower!,
      p.tick_upper!,
      numberToHex(BigInt(p.token_id!), { size: 32 }),
    ],
  });
  const [now0, now1] = await client.readContract({
    address: stateView,
    abi,
    functionName: "getFeeGrowthInside",
    args: [poolId, p.tick_lower!, p.tick_upper!],
  });
  return [
    (liquidity * ((now0 - last0 + U256) % U256)) / Q128,
    (liquidity * ((now1 - last1 + U256) % U256)) / Q128,
  ];
};
