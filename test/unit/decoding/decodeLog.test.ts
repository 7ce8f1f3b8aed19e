import { describe, expect, it } from "vitest";
import { EVENT_TOPICS } from "../../../src/decoding/abi/eventTopics.js";
import { decodeLog, decodeLogs } from "../../../src/decoding/decodeLog.js";
import {
  ALICE,
  BOB,
  CAROL,
  EVENTS,
  encodeLog,
  FACTORY,
  MANAGER,
  MULTI,
  NFT,
  PAIR,
  POOL,
  POOL_ID,
  TX_HASH,
  WETH,
} from "./fixtures.js";

const at = { logIndex: 7, txIndex: 3, address: PAIR };
const where = { address: PAIR, logIndex: 7, transactionIndex: 3, transactionHash: TX_HASH };

describe("decodeLog", () => {
  it("default: topic constants are the well-known selectors", () => {
    expect(EVENT_TOPICS.transfer).toBe("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");
    expect(EVENT_TOPICS.v2Swap).toBe("0xd78ad95fa46c994b6551d0da85fc275fe613ce37657fb8d5e3d130840159d822");
    expect(EVENT_TOPICS.v3Swap).toBe("0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67");
    expect(EVENT_TOPICS.v4Swap).toBe("0x40e9cecb9f5f1f1c5b9c97dec2917b7ee92e57ba5563708daca94dd84ad7112f");
    expect(new Set(Object.values(EVENT_TOPICS)).size).toBe(Object.values(EVENT_TOPICS).length);
  });

  it("behavior: ERC-20 and ERC-721 Transfer share topic 0 and differ by topic count", () => {
    const erc20 = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 10n ** 30n }, at);
    const erc721 = encodeLog(EVENTS.erc721Transfer, { from: ALICE, to: BOB, tokenId: 42n }, at);
    expect(erc20.topics[0]).toBe(erc721.topics[0]);
    expect(decodeLog(erc20)).toEqual({
      kind: "erc20.transfer",
      ...where,
      from: ALICE,
      to: BOB,
      value: 10n ** 30n,
    });
    expect(decodeLog(erc721)).toEqual({
      kind: "erc721.transfer",
      ...where,
      from: ALICE,
      to: BOB,
      tokenId: 42n,
    });
  });

  it("behavior: pre-standard ERC-721 logs with every argument in data (CryptoKitties) decode as ERC-721", () => {
    const kitty = encodeLog(EVENTS.kittyTransfer, { from: ALICE, to: BOB, tokenId: 5n }, at);
    expect(decodeLog(kitty)).toEqual({
      kind: "erc721.transfer",
      ...where,
      from: ALICE,
      to: BOB,
      tokenId: 5n,
    });
  });

  it("behavior: ERC-20 and ERC-721 Approval, and ApprovalForAll", () => {
    expect(
      decodeLog(encodeLog(EVENTS.erc20Approval, { owner: ALICE, spender: BOB, value: 2n ** 256n - 1n }, at)),
    ).toEqual({
      kind: "erc20.approval",
      ...where,
      owner: ALICE,
      spender: BOB,
      value: 2n ** 256n - 1n,
    });
    expect(
      decodeLog(encodeLog(EVENTS.erc721Approval, { owner: ALICE, approved: BOB, tokenId: 9n }, at)),
    ).toEqual({
      kind: "erc721.approval",
      ...where,
      owner: ALICE,
      approved: BOB,
      tokenId: 9n,
    });
    expect(
      decodeLog(encodeLog(EVENTS.approvalForAll, { owner: ALICE, operator: BOB, approved: true }, at)),
    ).toEqual({
      kind: "erc721.approvalForAll",
      ...where,
      owner: ALICE,
      operator: BOB,
      approved: true,
    });
  });

  it("behavior: ERC-1155 TransferSingle and TransferBatch", () => {
    const single = { operator: CAROL, from: ALICE, to: BOB, id: 1n, value: 5n };
    expect(decodeLog(encodeLog(EVENTS.transferSingle, single, { ...at, address: MULTI }))).toEqual({
      kind: "erc1155.transferSingle",
      ...where,
      address: MULTI,
      ...single,
    });
    const batch = { operator: CAROL, from: ALICE, to: BOB, ids: [1n, 2n, 3n], values: [10n, 0n, 30n] };
    expect(decodeLog(encodeLog(EVENTS.transferBatch, batch, { ...at, address: MULTI }))).toEqual({
      kind: "erc1155.transferBatch",
      ...where,
      address: MULTI,
      ...batch,
    });
    const empty = { operator: CAROL, from: ALICE, to: BOB, ids: [], values: [] };
    expect(decodeLog(encodeLog(EVENTS.transferBatch, empty, at))).toMatchObject({ ids: [], values: [] });
  });

  it("behavior: wrapped-native Deposit and Withdrawal", () => {
    expect(decodeLog(encodeLog(EVENTS.deposit, { dst: ALICE, wad: 3n }, { ...at, address: WETH }))).toEqual({
      kind: "weth.deposit",
      ...where,
      address: WETH,
      dst: ALICE,
      wad: 3n,
    });
    expect(
      decodeLog(encodeLog(EVENTS.withdrawal, { src: ALICE, wad: 4n }, { ...at, address: WETH })),
    ).toEqual({
      kind: "weth.withdrawal",
      ...where,
      address: WETH,
      src: ALICE,
      wad: 4n,
    });
  });

  it("behavior: Uniswap V2 Swap, Mint, Burn, Sync and PairCreated", () => {
    const swap = { sender: ALICE, amount0In: 1n, amount1In: 0n, amount0Out: 0n, amount1Out: 2n, to: BOB };
    expect(decodeLog(encodeLog(EVENTS.v2Swap, swap, at))).toEqual({ kind: "v2.swap", ...where, ...swap });
    const mint = { sender: ALICE, amount0: 5n, amount1: 6n };
    expect(decodeLog(encodeLog(EVENTS.v2Mint, mint, at))).toEqual({ kind: "v2.mint", ...where, ...mint });
    const burn = { sender: ALICE, amount0: 5n, amount1: 6n, to: BOB };
    expect(decodeLog(encodeLog(EVENTS.v2Burn, burn, at))).toEqual({ kind: "v2.burn", ...where, ...burn });
    const sync = { reserve0: 2n ** 112n - 1n, reserve1: 7n };
    expect(decodeLog(encodeLog(EVENTS.v2Sync, sync, at))).toEqual({ kind: "v2.sync", ...where, ...sync });
    const created = { token0: ALICE, token1: BOB, pair: PAIR, allPairsLength: 12n };
    expect(decodeLog(encodeLog(EVENTS.v2PairCreated, created, { ...at, address: FACTORY }))).toEqual({
      kind: "v2.pairCreated",
      ...where,
      address: FACTORY,
      ...created,
    });
  });

  it("behavior: Uniswap V3 Swap, Mint, Burn, Collect and PoolCreated, with negative amounts and ticks", () => {
    const swap = {
      sender: ALICE,
      recipient: BOB,
      amount0: -(10n ** 18n),
      amount1: 5n,
      sqrtPriceX96: 2n ** 96n,
      liquidity: 10n ** 20n,
      tick: -887272,
    };
    expect(decodeLog(encodeLog(EVENTS.v3Swap, swap, at))).toEqual({ kind: "v3.swap", ...where, ...swap });
    const mint = {
      sender: CAROL,
      owner: ALICE,
      tickLower: -60,
      tickUpper: 887220,
      amount: 9n,
      amount0: 1n,
      amount1: 2n,
    };
    expect(decodeLog(encodeLog(EVENTS.v3Mint, mint, at))).toEqual({ kind: "v3.mint", ...where, ...mint });
    const burn = { owner: ALICE, tickLower: -120, tickUpper: -60, amount: 9n, amount0: 1n, amount1: 2n };
    expect(decodeLog(encodeLog(EVENTS.v3Burn, burn, at))).toEqual({ kind: "v3.burn", ...where, ...burn });
    const collect = {
      owner: ALICE,
      recipient: BOB,
      tickLower: -120,
      tickUpper: 60,
      amount0: 3n,
      amount1: 4n,
    };
    expect(decodeLog(encodeLog(EVENTS.v3Collect, collect, at))).toEqual({
      kind: "v3.collect",
      ...where,
      ...collect,
    });
    const created = { token0: ALICE, token1: BOB, fee: 3000, tickSpacing: 60, pool: POOL };
    expect(decodeLog(encodeLog(EVENTS.v3PoolCreated, created, { ...at, address: FACTORY }))).toEqual({
      kind: "v3.poolCreated",
      ...where,
      address: FACTORY,
      ...created,
    });
  });

  it("behavior: Uniswap V4 Initialize, Swap and ModifyLiquidity", () => {
    const pm = { ...at, address: MANAGER };
    const init = {
      id: POOL_ID,
      currency0: "0x0000000000000000000000000000000000000000",
      currency1: BOB,
      fee: 0x800000,
      tickSpacing: 1,
      hooks: CAROL,
      sqrtPriceX96: 79228162514264337593543950336n,
      tick: -1,
    };
    expect(decodeLog(encodeLog(EVENTS.v4Initialize, init, pm))).toEqual({
      kind: "v4.initialize",
      ...where,
      address: MANAGER,
      ...init,
    });
    const swap = {
      id: POOL_ID,
      sender: ALICE,
      amount0: -(2n ** 127n),
      amount1: 2n ** 127n - 1n,
      sqrtPriceX96: 1n,
      liquidity: 2n,
      tick: 12,
      fee: 500,
    };
    expect(decodeLog(encodeLog(EVENTS.v4Swap, swap, pm))).toEqual({
      kind: "v4.swap",
      ...where,
      address: MANAGER,
      ...swap,
    });
    const modify = {
      id: POOL_ID,
      sender: ALICE,
      tickLower: -10,
      tickUpper: 10,
      liquidityDelta: -5n,
      salt: `0x${"00".repeat(31)}07`,
    };
    expect(decodeLog(encodeLog(EVENTS.v4ModifyLiquidity, modify, pm))).toEqual({
      kind: "v4.modifyLiquidity",
      ...where,
      address: MANAGER,
      ...modify,
    });
  });

  it("behavior: trailing data beyond the event's words is ignored", () => {
    const log = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 1n });
    expect(decodeLog({ ...log, data: `${log.data}${"ff".repeat(32)}` })).toMatchObject({ value: 1n });
  });

  it("error: unknown topic 0, no topics, wrong topic count and short data decode to undefined", () => {
    const transfer = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 1n });
    expect(
      decodeLog({ ...transfer, topics: [`0x${"12".repeat(32)}`, ...transfer.topics.slice(1)] }),
    ).toBeUndefined();
    expect(decodeLog({ ...transfer, topics: [] })).toBeUndefined();
    expect(decodeLog({ ...transfer, topics: transfer.topics.slice(0, 2) })).toBeUndefined();
    expect(decodeLog({ ...transfer, data: "0x" })).toBeUndefined();
    expect(decodeLog({ ...transfer, data: transfer.data.slice(0, 64) })).toBeUndefined();
    const swap = encodeLog(EVENTS.v3Swap, {
      sender: ALICE,
      recipient: BOB,
      amount0: 1n,
      amount1: -1n,
      sqrtPriceX96: 1n,
      liquidity: 1n,
      tick: 0,
    });
    expect(decodeLog({ ...swap, data: swap.data.slice(0, 2 + 64 * 4) })).toBeUndefined();
    expect(decodeLog({ ...swap, topics: [...swap.topics, swap.topics[1]!] })).toBeUndefined();
  });

  it("error: non-hex, upper-case and odd-length hex decode to undefined", () => {
    const transfer = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 0xabcdefn });
    expect(decodeLog({ ...transfer, data: `${transfer.data.slice(0, -1)}z` })).toBeUndefined();
    expect(decodeLog({ ...transfer, data: transfer.data.toUpperCase().replace("0X", "0x") })).toBeUndefined();
    expect(decodeLog({ ...transfer, data: `${transfer.data}0` })).toBeUndefined();
    expect(
      decodeLog({
        ...transfer,
        topics: [transfer.topics[0]!, transfer.topics[1]!.slice(0, 40), transfer.topics[2]!],
      }),
    ).toBeUndefined();
    expect(decodeLog({ ...transfer, address: NFT.toUpperCase() })).toBeUndefined();
  });

  it("error: ERC-1155 batches with bad offsets, overlong arrays or unequal lengths decode to undefined", () => {
    const log = encodeLog(EVENTS.transferBatch, {
      operator: CAROL,
      from: ALICE,
      to: BOB,
      ids: [1n, 2n],
      values: [3n, 4n],
    });
    const words = (log.data.slice(2).match(/.{64}/g) ?? []).slice();
    const rebuild = (w: ReadonlyArray<string>) => ({ ...log, data: `0x${w.join("")}` });
    const word = (n: bigint) => n.toString(16).padStart(64, "0");
    expect(decodeLog(rebuild([word(33n), ...words.slice(1)]))).toBeUndefined();
    expect(decodeLog(rebuild([word(32n * 100n), ...words.slice(1)]))).toBeUndefined();
    const overlong = words.slice();
    overlong[2] = word(1000n);
    expect(decodeLog(rebuild(overlong))).toBeUndefined();
    const unequal = encodeLog(EVENTS.transferBatch, {
      operator: CAROL,
      from: ALICE,
      to: BOB,
      ids: [1n, 2n],
      values: [3n],
    });
    expect(decodeLog(unequal)).toBeUndefined();
  });

  it("args: decodeLogs keeps known events in input order and drops the rest", () => {
    const a = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 1n }, { logIndex: 0 });
    const b = { ...a, topics: [`0x${"00".repeat(32)}`], log_index: 1 };
    const c = encodeLog(EVENTS.v2Sync, { reserve0: 1n, reserve1: 2n }, { logIndex: 2 });
    expect(decodeLogs([a, b, c]).map((e) => [e.kind, e.logIndex])).toEqual([
      ["erc20.transfer", 0],
      ["v2.sync", 2],
    ]);
  });
});
