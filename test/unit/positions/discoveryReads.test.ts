import {
  decodeFunctionData,
  encodeAbiParameters,
  type Hex,
  keccak256,
  parseAbi,
  parseAbiParameters,
  toFunctionSelector,
} from "viem";
import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { RawResult } from "../../../src/chains/multicall3.js";
import type { RpcRequest } from "../../../src/chains/rpc/RpcRequest.js";
import { nftKey, poolKey, walletHeldNftKey, walletNftKey } from "../../../src/indexer/indexKeys.js";
import { addressArray, wordArray } from "../../../src/positions/discovery/abiWords.js";
import type { DiscoveryContext } from "../../../src/positions/discovery/DiscoveryContext.js";
import { findEnumerableNfts } from "../../../src/positions/discovery/enumerableNfts.js";
import { decodeV4PositionInfo } from "../../../src/positions/discovery/v4NftsById.js";
import { v4PoolId } from "../../../src/pricing/standardPools.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";
import { memoryDb } from "../../support/indexerBlocks.js";

const ok = (returnData: Hex): RawResult => ({ success: true, returnData });

describe("dynamic arrays in call results", () => {
  it("bytes: reads both arrays of a (address[], uint256[]) answer", () => {
    const strategies = [
      "0x00000000000000000000000000000000000000aa",
      "0x00000000000000000000000000000000000000bb",
    ];
    const result = ok(
      encodeAbiParameters(parseAbiParameters("address[], uint256[]"), [strategies as Array<Hex>, [1n, 0n]]),
    );
    expect(addressArray(result, 0)).toEqual(strategies);
    expect(wordArray(result, 1)).toEqual([1n, 0n]);
    expect(addressArray(ok(encodeAbiParameters(parseAbiParameters("address[]"), [[]])), 0)).toEqual([]);
  });

  it("error: a failed call, an answer shorter than its length, a misaligned offset read as none", () => {
    const full = encodeAbiParameters(parseAbiParameters("address[]"), [
      ["0x00000000000000000000000000000000000000aa"],
    ]);
    expect(addressArray({ success: false, returnData: full }, 0)).toBeUndefined();
    expect(addressArray(ok(full.slice(0, -64) as Hex), 0)).toBeUndefined();
    // A length of 2^255: never allocated, never read.
    expect(wordArray(ok(`0x${"20".padStart(64, "0")}${"8".padEnd(64, "0")}`), 0)).toBeUndefined();
    expect(wordArray(ok(`0x${"21".padStart(64, "0")}${"0".padStart(64, "0")}`), 0)).toBeUndefined();
  });
});

describe("V4 position info", () => {
  const key = {
    currency0: "0x0000000000000000000000000000000000000000",
    currency1: "0x00000000000000000000000000000000000000cc",
    fee: 3000,
    tickSpacing: -60,
    hooks: "0x4444000000000000000000000000000000000040",
  } as const;
  const poolKeyType = parseAbiParameters(
    "(address currency0, address currency1, uint24 fee, int24 tickSpacing, address hooks)",
  );
  /** Packed as PositionInfoLibrary does: pool id (200 bits) | tickUpper | tickLower | hasSubscriber. */
  const info = (tickLower: number, tickUpper: number) =>
    (0xabcdefn << 56n) |
    (BigInt.asUintN(24, BigInt(tickUpper)) << 32n) |
    (BigInt.asUintN(24, BigInt(tickLower)) << 8n) |
    1n;
  const answer = (packed: bigint) =>
    ok(
      encodeAbiParameters(
        [...poolKeyType, { type: "uint256" }],
        [
          {
            ...key,
            currency1: key.currency1 as Hex,
            currency0: key.currency0 as Hex,
            hooks: key.hooks as Hex,
          },
          packed,
        ],
      ),
    );

  it("bytes: decodes the key and both signed ticks; the pool id is keccak256(abi.encode(key))", () => {
    const decoded = decodeV4PositionInfo(answer(info(-887_220, 1_200)))!;
    expect(decoded).toEqual({
      currency0: key.currency0,
      currency1: key.currency1,
      fee: 3000n,
      tickSpacing: -60n,
      hooks: key.hooks,
      tickLower: -887_220,
      tickUpper: 1_200,
    });
    expect(v4PoolId(decoded)).toBe(
      keccak256(
        encodeAbiParameters(poolKeyType, [
          {
            ...key,
            currency0: key.currency0 as Hex,
            currency1: key.currency1 as Hex,
            hooks: key.hooks as Hex,
          },
        ]),
      ),
    );
  });

  it("error: a burned or never minted id (empty info) reads as none", () => {
    expect(decodeV4PositionInfo(answer(0n))).toBeUndefined();
    expect(decodeV4PositionInfo({ success: false, returnData: "0x" })).toBeUndefined();
  });
});

describe("enumerable position NFTs", () => {
  const WALLET = `0x${"ab".repeat(20)}`;
  const MANAGER = `0x${"11".repeat(20)}`;
  const FACTORY = `0x${"22".repeat(20)}`;
  const POOL = `0x${"33".repeat(20)}`;
  const TOKEN0 = `0x${"44".repeat(20)}`;
  const TOKEN1 = `0x${"55".repeat(20)}`;
  const chain = testChainConfig({
    protocols: [
      ProtocolConfig.make({ protocol: "UniswapV3", kind: "v3", address: FACTORY, position_manager: MANAGER }),
    ],
  });
  const aggregate3 = parseAbi(["function aggregate3((address,bool,bytes)[]) returns ((bool,bytes)[])"]);
  const selector = (signature: string) => toFunctionSelector(signature);
  const word = (n: bigint | number | string) =>
    typeof n === "string"
      ? n.slice(2).padStart(64, "0")
      : BigInt.asUintN(256, BigInt(n)).toString(16).padStart(64, "0");

  /** A node holding `held` NFTs of MANAGER for WALLET, all in POOL over (TOKEN0, TOKEN1, 0.3 %). */
  const node = (held: number) => {
    const sent: Array<RpcRequest> = [];
    const answerCall = (callData: Hex): [boolean, Hex] => {
      const args = callData.slice(10);
      switch (callData.slice(0, 10)) {
        case selector("balanceOf(address)"):
          return [true, `0x${word(held)}`];
        case selector("tokenOfOwnerByIndex(address,uint256)"):
          return [true, `0x${word(1_000_000n + BigInt(`0x${args.slice(64, 128)}`))}`];
        case selector("positions(uint256)"):
          return [
            true,
            `0x${[0, 0, TOKEN0, TOKEN1, 3000, -600, 600, 1, 0, 0, 0, 0].map((w) => word(w)).join("")}`,
          ];
        case selector("getPool(address,address,uint24)"):
          return [true, `0x${word(POOL)}`];
        case selector("feeAmountTickSpacing(uint24)"):
          return [true, `0x${word(60)}`];
        default:
          return [false, "0x"];
      }
    };
    // A request that arrives before any answer of the round before it is sent in the same round trip.
    let answered = 0;
    const rounds = new Set<number>();
    const rpc = fakeChainRpc(async (requests) => {
      rounds.add(answered);
      await new Promise((resolve) => setTimeout(resolve, 5));
      answered += requests.length;
      return {
        kind: "answers",
        answers: requests.map((request) => {
          sent.push(request);
          const { data } = request.params[0] as { data: Hex };
          const [calls] = decodeFunctionData({ abi: aggregate3, data }).args as [
            ReadonlyArray<readonly [string, boolean, Hex]>,
          ];
          return {
            ok: true,
            result: encodeAbiParameters(
              [{ type: "tuple[]", components: [{ type: "bool" }, { type: "bytes" }] }],
              [calls.map(([, , callData]) => answerCall(callData))],
            ),
          };
        }),
      };
    });
    return { rpc, sent, rounds };
  };

  it("bytes: 5,000 NFTs are read as 1,000 in four round trips, and the cap is reported", async () => {
    const { rpc, sent, rounds } = node(5_000);
    const db = memoryDb();
    const context: DiscoveryContext = { chain, block: { number: 100 }, rpc, db };
    const found = await findEnumerableNfts(context, WALLET.toUpperCase().replace("0X", "0x"));
    // balanceOf; 1,000 tokenOfOwnerByIndex and 1,000 positions, each as two eth_calls at once; getPool.
    expect(rounds.size).toBe(4);
    expect(sent).toHaveLength(6);
    expect(sent.every((r) => r.method === "eth_call")).toBe(true);
    expect(found.truncated).toBe(`UniswapV3 position NFTs of ${MANAGER}: read 1000 of 5000`);
    const keys = new Map(found.ops.map((op) => [op.key, op.type === "put" ? op.value : undefined]));
    expect(keys.get(walletNftKey(WALLET, 1, MANAGER, 1_000_999n))).toEqual({ block: 100 });
    expect(keys.get(walletNftKey(WALLET, 1, MANAGER, 1_001_000n))).toBeUndefined();
    expect(keys.get(nftKey(1, MANAGER, 1_000_000n))).toEqual({
      pool: POOL,
      tick_lower: -600,
      tick_upper: 600,
    });
    expect(keys.get(poolKey(1, POOL))).toEqual({
      pool: POOL,
      kind: "v3",
      protocol: "UniswapV3",
      factory: FACTORY,
      token0: TOKEN0,
      token1: TOKEN1,
      fee: 3000,
      tick_spacing: 60,
      hooks: null,
      created_block: 100,
    });
    // 1,000 held, 1,000 ever held (for reads at past blocks), 1,000 minted, the pool and its two tokens' entries.
    expect(found.ops).toHaveLength(3_003);
  });

  it("default: a wallet without NFTs costs one round trip; what the index holds is not written again", async () => {
    const empty = node(0);
    const context = { chain, block: { number: 100 }, rpc: empty.rpc, db: memoryDb() };
    expect(await findEnumerableNfts(context, WALLET)).toEqual({ ops: [] });
    expect(empty.sent).toHaveLength(1);

    const { rpc } = node(2);
    const db = memoryDb();
    await db.put(poolKey(1, POOL), { indexed: true });
    await db.put(walletNftKey(WALLET, 1, MANAGER, 1_000_000n), { block: 7 });
    const found = await findEnumerableNfts({ chain, block: { number: 100 }, rpc, db }, WALLET);
    // The held record the index has is kept; the ever-held records it lacks (an index from before
    // they were kept) are written for both.
    expect(found.ops.map((op) => op.key).sort()).toEqual(
      [
        nftKey(1, MANAGER, 1_000_000n),
        nftKey(1, MANAGER, 1_000_001n),
        walletNftKey(WALLET, 1, MANAGER, 1_000_001n),
        walletHeldNftKey(WALLET, 1, MANAGER, 1_000_000n),
        walletHeldNftKey(WALLET, 1, MANAGER, 1_000_001n),
      ].sort(),
    );
  });
});
