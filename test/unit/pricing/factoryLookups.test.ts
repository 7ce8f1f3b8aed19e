import fc from "fast-check";
import { encodeAbiParameters, type Hex, keccak256, toFunctionSelector } from "viem";
import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import { aggregate3 } from "../../../src/chains/multicall3.js";
import {
  counterpartsOf,
  lookupPairs,
  lookupTokens,
  planFactoryLookups,
} from "../../../src/pricing/factoryLookups.js";
import { V4_STANDARD_KEYS, v4PoolId, ZERO_ADDRESS } from "../../../src/pricing/standardPools.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeFactoryNode } from "../../support/fakeFactoryNode.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const USDC = address(0xc1);
const USDT = address(0xc2);
const QUOTE = address(0xa1);
const WETH = address(0xe1);
const TOKEN = address(0xd1);
const LOW = address(0x01);
const V2 = address(0xf2);
const V2_REVERTS = address(0xf7);
const V3 = address(0xf3);
const V3_SILENT = address(0xf8);
const MANAGER = address(0xf4);
const STATE_VIEW = address(0xf5);
const ALGEBRA = address(0xf6);

const chain = testChainConfig({
  wrapped_native: WETH,
  stablecoins: [USDC, USDT],
  quote_tokens: [QUOTE],
  protocols: [
    ProtocolConfig.make({ protocol: "UniswapV2", kind: "v2", address: V2 }),
    ProtocolConfig.make({ protocol: "BrokenV2", kind: "v2", address: V2_REVERTS }),
    ProtocolConfig.make({ protocol: "UniswapV3", kind: "v3", address: V3 }),
    ProtocolConfig.make({ protocol: "QuietV3", kind: "v3", address: V3_SILENT }),
    ProtocolConfig.make({ protocol: "UniswapV4", kind: "v4", address: MANAGER, state_view: STATE_VIEW }),
    ProtocolConfig.make({ protocol: "Algebra", kind: "algebra", address: ALGEBRA }),
    ProtocolConfig.make({ protocol: "AaveV3", kind: "aave_v3", address: address(0xaa) }),
  ],
});

const sorted = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);
const GET_SLOT0 = toFunctionSelector("getSlot0(bytes32)");
const viemPoolId = (key: {
  currency0: string;
  currency1: string;
  fee: number;
  tickSpacing: number;
  hooks: string;
}) =>
  keccak256(
    encodeAbiParameters(
      [{ type: "address" }, { type: "address" }, { type: "uint24" }, { type: "int24" }, { type: "address" }],
      [key.currency0 as Hex, key.currency1 as Hex, key.fee, key.tickSpacing, key.hooks as Hex],
    ),
  );

describe("factory lookup planning", () => {
  it("behavior: tokens are paired as pricing routes them: hops with stablecoins, the rest with stablecoins and hops", () => {
    // Native (the zero address) is looked up as wrapped native; hops and stablecoins always come along.
    const tokens = lookupTokens(chain, [TOKEN, ZERO_ADDRESS, TOKEN.toUpperCase().replace("0X", "0x")]);
    expect(new Set(tokens)).toEqual(new Set([TOKEN, WETH, QUOTE, USDC, USDT]));
    expect(new Set(counterpartsOf(chain, WETH))).toEqual(new Set([USDC, USDT]));
    expect(new Set(counterpartsOf(chain, QUOTE))).toEqual(new Set([USDC, USDT]));
    expect(new Set(counterpartsOf(chain, USDC))).toEqual(new Set([USDT, WETH, QUOTE]));
    expect(new Set(counterpartsOf(chain, TOKEN))).toEqual(new Set([USDC, USDT, WETH, QUOTE]));
    const pairs = lookupPairs(chain, tokens);
    for (const [a, b] of pairs) expect(a < b).toBe(true);
    expect(new Set(pairs.map(([a, b]) => `${a}|${b}`))).toEqual(
      new Set(
        [
          [TOKEN, USDC],
          [TOKEN, USDT],
          [TOKEN, WETH],
          [TOKEN, QUOTE],
          [WETH, USDC],
          [WETH, USDT],
          [QUOTE, USDC],
          [QUOTE, USDT],
          [USDC, USDT],
        ].map(([a, b]) => sorted(a!, b!)),
      ),
    );
  });

  it("behavior: a V4 pool id is keccak256 of the ABI-encoded PoolKey, for any key", () => {
    const addressArb = fc
      .uint8Array({ minLength: 20, maxLength: 20 })
      .map((bytes) => `0x${Buffer.from(bytes).toString("hex")}`);
    fc.assert(
      fc.property(
        addressArb,
        addressArb,
        fc.integer({ min: 0, max: 2 ** 24 - 1 }),
        fc.integer({ min: -(2 ** 23), max: 2 ** 23 - 1 }),
        addressArb,
        (currency0, currency1, fee, tickSpacing, hooks) => {
          const key = { currency0, currency1, fee, tickSpacing, hooks };
          expect(v4PoolId(key)).toBe(viemPoolId(key));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("behavior: every pair is asked of every pool factory, V4 by its standard keys, with native ETH where wrapped native is a side", () => {
    const plan = planFactoryLookups(chain, [TOKEN, WETH]);
    // TOKEN: USDC, USDT, WETH, QUOTE; WETH: USDC, USDT. Each pair: 2 V2, 2 x 4 V3, 1 Algebra, 4 V4 (8 with WETH).
    const pairs = plan.pairs.length;
    const withWeth = plan.pairs.filter(([a, b]) => a === WETH || b === WETH).length;
    expect(pairs).toBe(6);
    expect(withWeth).toBe(3);
    expect(plan.calls.length).toBe(2 * 4 + pairs * (2 + 8 + 1 + 4) + withWeth * 4);
    // No call ever goes to a token: a hostile token cannot burn the batch's gas.
    const targets = new Set(plan.calls.map((call) => call.target));
    expect(targets).toEqual(new Set([V2, V2_REVERTS, V3, V3_SILENT, STATE_VIEW, ALGEBRA]));

    const asked = new Set(
      plan.calls
        .filter((call) => call.callData.startsWith(GET_SLOT0))
        .map((call) => `0x${call.callData.slice(10)}`),
    );
    const expected = new Set<string>();
    for (const [a, b] of plan.pairs) {
      const sides = [[a, b]];
      if (a === WETH || b === WETH) sides.push([ZERO_ADDRESS, a === WETH ? b : a]);
      for (const [currency0, currency1] of sides)
        for (const { fee, tickSpacing } of V4_STANDARD_KEYS)
          expected.add(
            viemPoolId({
              currency0: currency0!,
              currency1: currency1!,
              fee,
              tickSpacing,
              hooks: ZERO_ADDRESS,
            }),
          );
    }
    expect(asked).toEqual(expected);
  });

  it("behavior: answers become pools with sorted tokens and the factory's tick spacing; reverts and zero answers are no pool", async () => {
    const node = fakeFactoryNode();
    node.revert(V2_REVERTS);
    node.v2(V2, TOKEN, USDC, address(0x1001));
    node.v2(V2, LOW, WETH, address(0x1002));
    node.v3(V3, TOKEN, WETH, 3000, address(0x1003));
    node.v3Spacing(V3, 3000, 60);
    node.v3Spacing(V3, 500, 7);
    node.v3(V3, WETH, USDC, 500, address(0x1004));
    // The quiet factory does not answer feeAmountTickSpacing: the standard spacing stands in.
    node.v3(V3_SILENT, TOKEN, USDT, 10000, address(0x1005));
    node.algebra(ALGEBRA, WETH, USDC, address(0x1006));
    const nativeKey = {
      currency0: ZERO_ADDRESS,
      currency1: USDC,
      fee: 3000,
      tickSpacing: 60,
      hooks: ZERO_ADDRESS,
    };
    const wethKey = { currency0: TOKEN, currency1: WETH, fee: 100, tickSpacing: 1, hooks: ZERO_ADDRESS };
    // An initialised pool with hooks is not a standard key: never asked, never found.
    const hooked = { ...wethKey, hooks: address(0x4440) };
    for (const key of [nativeKey, wethKey, hooked]) node.v4(STATE_VIEW, viemPoolId(key));

    const plan = planFactoryLookups(chain, lookupTokens(chain, [TOKEN, LOW]));
    const found = plan.decode(await aggregate3(node.rpc, plan.calls));
    const byPool = new Map(found.map((pool) => [pool.pool, pool]));
    expect(found).toHaveLength(8);
    expect(byPool.get(address(0x1001))).toEqual({
      pool: address(0x1001),
      kind: "v2",
      protocol: "UniswapV2",
      factory: V2,
      token0: USDC,
      token1: TOKEN,
      fee: null,
      tick_spacing: null,
      hooks: null,
    });
    expect(byPool.get(address(0x1002))).toMatchObject({ token0: LOW, token1: WETH });
    expect(byPool.get(address(0x1003))).toMatchObject({
      kind: "v3",
      token0: TOKEN,
      token1: WETH,
      fee: 3000,
      tick_spacing: 60,
    });
    expect(byPool.get(address(0x1004))).toMatchObject({
      kind: "v3",
      token0: USDC,
      token1: WETH,
      fee: 500,
      tick_spacing: 7,
    });
    expect(byPool.get(address(0x1005))).toMatchObject({
      kind: "v3",
      protocol: "QuietV3",
      fee: 10000,
      tick_spacing: 200,
    });
    expect(byPool.get(address(0x1006))).toMatchObject({
      kind: "algebra",
      token0: USDC,
      token1: WETH,
      fee: null,
      tick_spacing: null,
    });
    expect(byPool.get(viemPoolId(nativeKey))).toEqual({
      pool: viemPoolId(nativeKey),
      kind: "v4",
      protocol: "UniswapV4",
      factory: MANAGER,
      token0: ZERO_ADDRESS,
      token1: USDC,
      fee: 3000,
      tick_spacing: 60,
      hooks: ZERO_ADDRESS,
    });
    expect(byPool.get(viemPoolId(wethKey))).toMatchObject({
      token0: TOKEN,
      token1: WETH,
      fee: 100,
      tick_spacing: 1,
    });
    expect(byPool.has(viemPoolId(hooked))).toBe(false);
    // One aggregate3 for all of it.
    expect(node.ethCalls).toEqual([plan.calls.length]);
  });

  it("edge: a chain without pool factories, or whose V4 manager has no StateView, asks nothing of them", () => {
    const bare = testChainConfig({ wrapped_native: WETH, stablecoins: [USDC] });
    expect(planFactoryLookups(bare, lookupTokens(bare, [TOKEN])).calls).toHaveLength(0);
    const noView = testChainConfig({
      wrapped_native: WETH,
      stablecoins: [USDC],
      protocols: [ProtocolConfig.make({ protocol: "UniswapV4", kind: "v4", address: MANAGER })],
    });
    expect(planFactoryLookups(noView, lookupTokens(noView, [TOKEN])).calls).toHaveLength(0);
  });
});
