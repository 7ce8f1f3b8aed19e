import { type Address, concatHex, encodeAbiParameters, type Hex, numberToHex } from "viem";
import type { PoolKey } from "./poolMath.js";

/** Action codes of v4-periphery's `Actions` library that the devnet uses. */
const Action = {
  MINT_POSITION: 0x02,
  BURN_POSITION: 0x03,
  SETTLE_PAIR: 0x0d,
  TAKE_PAIR: 0x11,
  SWEEP: 0x14,
} as const;

const poolKeyParameter = {
  type: "tuple",
  components: [
    { name: "currency0", type: "address" },
    { name: "currency1", type: "address" },
    { name: "fee", type: "uint24" },
    { name: "tickSpacing", type: "int24" },
    { name: "hooks", type: "address" },
  ],
} as const;

const unlockData = (actions: readonly number[], params: readonly Hex[]): Hex =>
  encodeAbiParameters(
    [{ type: "bytes" }, { type: "bytes[]" }],
    [concatHex(actions.map((action) => numberToHex(action, { size: 1 }))), params],
  );

const currencyPair = (key: PoolKey): Hex =>
  encodeAbiParameters([{ type: "address" }, { type: "address" }], [key.currency0, key.currency1]);

/** What a V4 position mint needs. */
export interface MintPositionParams {
  readonly key: PoolKey;
  readonly tickLower: number;
  readonly tickUpper: number;
  readonly liquidity: bigint;
  readonly amount0Max: bigint;
  readonly amount1Max: bigint;
  readonly owner: Address;
}

/**
 * `modifyLiquidities` payload that mints a position to `owner`, paying both tokens through Permit2. With
 * `sweepEther`, a native-ETH pool's currency0 is paid from the call's value and the unused ether is swept
 * back to the owner.
 */
export const mintPositionData = (params: MintPositionParams, sweepEther = false): Hex =>
  unlockData(
    sweepEther
      ? [Action.MINT_POSITION, Action.SETTLE_PAIR, Action.SWEEP]
      : [Action.MINT_POSITION, Action.SETTLE_PAIR],
    [
      encodeAbiParameters(
        [
          poolKeyParameter,
          { type: "int24" },
          { type: "int24" },
          { type: "uint256" },
          { type: "uint128" },
          { type: "uint128" },
          { type: "address" },
          { type: "bytes" },
        ],
        [
          params.key,
          params.tickLower,
          params.tickUpper,
          params.liquidity,
          params.amount0Max,
          params.amount1Max,
          params.owner,
          "0x",
        ],
      ),
      currencyPair(params.key),
      ...(sweepEther
        ? [
            encodeAbiParameters(
              [{ type: "address" }, { type: "address" }],
              [params.key.currency0, params.owner],
            ),
          ]
        : []),
    ],
  );

/** `modifyLiquidities` payload that burns position `tokenId` and sends both tokens to `recipient`. */
export const burnPositionData = (key: PoolKey, tokenId: bigint, recipient: Address): Hex =>
  unlockData(
    [Action.BURN_POSITION, Action.TAKE_PAIR],
    [
      encodeAbiParameters(
        [{ type: "uint256" }, { type: "uint128" }, { type: "uint128" }, { type: "bytes" }],
        [tokenId, 0n, 0n, "0x"],
      ),
      encodeAbiParameters(
        [{ type: "address" }, { type: "address" }, { type: "address" }],
        [key.currency0, key.currency1, recipient],
      ),
    ],
  );
