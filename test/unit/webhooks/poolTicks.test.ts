import { encodeAbiParameters, encodeFunctionData, parseAbi } from "viem";
import { describe, expect, it } from "vitest";
import { EVENT_TOPICS } from "../../../src/decoding/index.js";
import { ChainLog } from "../../../src/domain/ChainBlock.js";
import type { HeldRange } from "../../../src/webhooks/alerts/heldRanges.js";
import { decodeTick, logsTouchPools, tickCall } from "../../../src/webhooks/alerts/poolTicks.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const word = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const POOL_MANAGER = address(0x4f);
const STATE_VIEW = address(0x45);
const POOL_ID = `0x${"ab".repeat(32)}`;
const OTHER_POOL_ID = `0x${"cd".repeat(32)}`;

const range = { manager: address(0x3a), tokenId: 1n, protocol: "P", tickLower: -60, tickUpper: 60 } as const;
const v3: HeldRange = { ...range, kind: "v3", pool: address(0x99) };
const algebra: HeldRange = { ...range, kind: "algebra", pool: address(0x98) };
const v4: HeldRange = {
  ...range,
  kind: "v4",
  pool: POOL_ID,
  poolManager: POOL_MANAGER,
  stateView: STATE_VIEW,
};

const abi = parseAbi(["function slot0()", "function globalState()", "function getSlot0(bytes32)"]);
const log = (emitter: string, topics: ReadonlyArray<string>) =>
  ChainLog.make({
    transaction_hash: word(1),
    transaction_index: 0,
    log_index: 0,
    address: emitter,
    topics: [...topics],
    data: "0x",
  });

describe("tickCall", () => {
  it("default: a V3-design pool's slot0", () => {
    expect(tickCall(v3)).toEqual({
      target: v3.pool,
      callData: encodeFunctionData({ abi, functionName: "slot0" }),
    });
  });

  it("behavior: an Algebra pool's globalState", () => {
    expect(tickCall(algebra)).toEqual({
      target: algebra.pool,
      callData: encodeFunctionData({ abi, functionName: "globalState" }),
    });
  });

  it("behavior: a V4 pool's getSlot0(poolId) on the PoolManager's StateView", () => {
    expect(tickCall(v4)).toEqual({
      target: STATE_VIEW,
      callData: encodeFunctionData({ abi, functionName: "getSlot0", args: [POOL_ID as `0x${string}`] }),
    });
  });
});

describe("decodeTick", () => {
  it("default: the second word as an int24, negative ticks included", () => {
    const returnData = encodeAbiParameters(
      [{ type: "uint160" }, { type: "int24" }, { type: "uint24" }, { type: "uint24" }],
      [2n ** 96n, -201_547, 0, 3000],
    );
    expect(decodeTick({ success: true, returnData })).toBe(-201_547);
  });

  it("error: a failed call answers no tick", () => {
    expect(decodeTick({ success: false, returnData: "0x" })).toBeUndefined();
    expect(decodeTick(undefined)).toBeUndefined();
  });
});

describe("logsTouchPools", () => {
  it("default: any log of a V3-design or Algebra pool", () => {
    expect(logsTouchPools([log(v3.pool, [word(9)])], [v3])).toBe(true);
    expect(logsTouchPools([log(algebra.pool, [word(9)])], [v3, algebra])).toBe(true);
    expect(logsTouchPools([log(address(0x77), [word(9)])], [v3, algebra])).toBe(false);
  });

  it("behavior: a PoolManager Swap, ModifyLiquidity or Initialize naming a held V4 pool id as topic 1", () => {
    for (const topic of [EVENT_TOPICS.v4Swap, EVENT_TOPICS.v4ModifyLiquidity, EVENT_TOPICS.v4Initialize])
      expect(logsTouchPools([log(POOL_MANAGER, [topic, POOL_ID, word(1)])], [v4])).toBe(true);
  });

  it("behavior: V4 events of another pool, of another PoolManager, or other PoolManager events do not", () => {
    expect(logsTouchPools([log(POOL_MANAGER, [EVENT_TOPICS.v4Swap, OTHER_POOL_ID, word(1)])], [v4])).toBe(
      false,
    );
    expect(logsTouchPools([log(address(0x5f), [EVENT_TOPICS.v4Swap, POOL_ID, word(1)])], [v4])).toBe(false);
    expect(logsTouchPools([log(POOL_MANAGER, [EVENT_TOPICS.transfer, POOL_ID, word(1)])], [v4])).toBe(false);
    // The PoolManager is no pool of its own: a log of it is not a log of a V3 pool.
    expect(logsTouchPools([log(POOL_MANAGER, [EVENT_TOPICS.v4Swap, POOL_ID, word(1)])], [v3])).toBe(false);
  });
});
