import { describe, expect, it } from "vitest";
import { toBlockTime } from "../../../src/decoding/activities/blockTime.js";
import { classifyBlock } from "../../../src/decoding/classifyBlock.js";
import { decodeLogs } from "../../../src/decoding/decodeLog.js";
import type { LogLike } from "../../../src/decoding/events/DecodedEvent.js";
import { poolsCreated } from "../../../src/decoding/poolsCreated.js";
import { contractTokenTouches, tokenTouches } from "../../../src/decoding/tokenTouches.js";
import { ChainBlock, ChainLog, ChainTransaction, InternalTransfer } from "../../../src/domain/ChainBlock.js";
import {
  ALICE,
  BOB,
  CAROL,
  EVENTS,
  encodeLog,
  FACTORY,
  MANAGER,
  NFT,
  PAIR,
  POOL,
  POOL_ID,
  ROUTER,
  TOKEN_A,
  TOKEN_B,
  WETH,
  ZERO,
} from "./fixtures.js";

const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

const tx = (index: number, fields: Partial<ConstructorParameters<typeof ChainTransaction>[0]> = {}) =>
  new ChainTransaction({
    hash: hash(index + 1),
    index,
    from: ALICE,
    to: BOB,
    value: "0",
    input: "0x",
    nonce: index,
    type: 2,
    success: true,
    gas_used: "21000",
    effective_gas_price: "1000000000",
    contract_address: null,
    ...fields,
  });

const log = (log: LogLike) => new ChainLog({ ...log, topics: [...log.topics] });

const block = (
  transactions: ReadonlyArray<ChainTransaction>,
  logs: ReadonlyArray<ChainLog>,
  internal: ReadonlyArray<InternalTransfer> | null = null,
  source: "live" | "history" = "live",
) =>
  new ChainBlock({
    version: 1,
    chain_id: 8453,
    number: 26635101,
    hash: hash(999),
    parent_hash: hash(998),
    timestamp: 1740059549,
    source,
    transactions,
    logs,
    internal_transfers: internal,
  });

describe("classifyBlock", () => {
  it("default: activities of every transaction, in transaction order, with the block's time", () => {
    const b = block(
      [
        tx(0, { value: "5" }),
        tx(1, { to: TOKEN_A, success: false, input: "0xa9059cbb" }),
        tx(2, { from: CAROL, to: TOKEN_A, input: "0xa9059cbb" }),
      ],
      [
        log(
          encodeLog(
            EVENTS.erc20Transfer,
            { from: CAROL, to: BOB, value: 3n },
            { logIndex: 0, txIndex: 2, txHash: hash(3) },
          ),
        ),
      ],
    );
    const activities = classifyBlock(b);
    expect(activities.map((a) => [a.tx_index, a.type, a.wallet_address])).toEqual([
      [0, "send", ALICE],
      [0, "receive", BOB],
      [1, "call", ALICE],
      [2, "send", CAROL],
      [2, "receive", BOB],
      [2, "call", TOKEN_A],
    ]);
    expect(new Set(activities.map((a) => a.block_time))).toEqual(new Set(["2025-02-20T13:52:29+00:00"]));
    expect(activities.every((a) => a.chain_id === 8453 && a.block_number === 26635101)).toBe(true);
    expect(new Set(activities.map((a) => a.activity_id)).size).toBe(activities.length);
  });

  it("behavior: internal transfers go to their own transaction; an empty trace list is not 'no traces'", () => {
    const b = block(
      [tx(0, { to: ROUTER, value: "10", input: "0x01020304" }), tx(1, { to: ROUTER, input: "0x01020304" })],
      [],
      [new InternalTransfer({ transaction_hash: hash(1), from: ROUTER, to: CAROL, value: "10", depth: 1 })],
    );
    expect(
      classifyBlock(b).map((a) => [a.tx_index, a.type, a.wallet_address, a.activity_id.split(":")[2]]),
    ).toEqual([
      [0, "send", ALICE, "tx"],
      [0, "receive", ROUTER, "tx"],
      [0, "send", ROUTER, "i0"],
      [0, "receive", CAROL, "i0"],
      [1, "call", ALICE, "tx"],
      [1, "call", ROUTER, "tx"],
    ]);
  });

  it("args: pre-decoded events give the same result as decoding inside", () => {
    const b = block(
      [tx(0, { to: TOKEN_A, input: "0xa9059cbb" })],
      [log(encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 3n }, { txHash: hash(1) }))],
    );
    expect(classifyBlock(b, {}, decodeLogs(b.logs))).toEqual(classifyBlock(b));
  });

  it("default: toBlockTime formats unix seconds with +00:00", () => {
    expect(toBlockTime(0)).toBe("1970-01-01T00:00:00+00:00");
    expect(toBlockTime(1740059549)).toBe("2025-02-20T13:52:29+00:00");
  });
});

describe("tokenTouches", () => {
  it("default: each (wallet, token) once, senders' native even for failed transactions, no zero address", () => {
    const b = block(
      [
        tx(0, { value: "5" }),
        tx(1, { from: CAROL, success: false }),
        tx(2, { to: TOKEN_A, input: "0x01" }),
        tx(3, { to: WETH, value: "2", input: "0xd0e30db0" }),
      ],
      [
        log(
          encodeLog(
            EVENTS.erc20Transfer,
            { from: ALICE, to: BOB, value: 3n },
            { logIndex: 0, txIndex: 2, txHash: hash(3) },
          ),
        ),
        log(
          encodeLog(
            EVENTS.erc20Transfer,
            { from: ALICE, to: BOB, value: 4n },
            { logIndex: 1, txIndex: 2, txHash: hash(3) },
          ),
        ),
        log(
          encodeLog(
            EVENTS.erc20Transfer,
            { from: ZERO, to: BOB, value: 4n },
            { logIndex: 2, txIndex: 2, txHash: hash(3), address: TOKEN_B },
          ),
        ),
        log(
          encodeLog(
            EVENTS.erc721Transfer,
            { from: BOB, to: CAROL, tokenId: 1n },
            { logIndex: 3, txIndex: 2, txHash: hash(3), address: NFT },
          ),
        ),
        log(
          encodeLog(
            EVENTS.erc20Approval,
            { owner: CAROL, spender: BOB, value: 1n },
            { logIndex: 4, txIndex: 2, txHash: hash(3), address: TOKEN_B },
          ),
        ),
        log(
          encodeLog(
            EVENTS.deposit,
            { dst: ALICE, wad: 2n },
            { logIndex: 5, txIndex: 3, txHash: hash(4), address: WETH },
          ),
        ),
      ],
    );
    const touches = tokenTouches(b, { wrappedNative: WETH }).map((t) => [
      t.wallet,
      t.token_address,
      t.standard,
    ]);
    expect(touches).toEqual([
      [ALICE, "native", "native"],
      [BOB, "native", "native"],
      [CAROL, "native", "native"],
      [WETH, "native", "native"],
      [ALICE, TOKEN_A, "erc20"],
      [BOB, TOKEN_A, "erc20"],
      [BOB, TOKEN_B, "erc20"],
      [BOB, NFT, "erc721"],
      [CAROL, NFT, "erc721"],
      [ALICE, WETH, "erc20"],
    ]);
    expect(tokenTouches(b, { wrappedNative: WETH }).every((t) => t.chain_id === 8453)).toBe(true);
    // The index's: the same token touches in the same order, and no native one.
    expect(
      contractTokenTouches(b, { wrappedNative: WETH }, decodeLogs(b.logs)).map((t) => [
        t.wallet,
        t.token_address,
        t.standard,
      ]),
    ).toEqual(touches.filter(([, token]) => token !== "native"));
  });
});

describe("history blocks", () => {
  it("behavior: a logs-only block still yields token touches and pools, and no activities", () => {
    const b = block(
      [],
      [
        log(
          encodeLog(
            EVENTS.erc20Transfer,
            { from: ALICE, to: BOB, value: 3n },
            { logIndex: 0, txHash: hash(7) },
          ),
        ),
        log(
          encodeLog(
            EVENTS.v2PairCreated,
            { token0: TOKEN_A, token1: TOKEN_B, pair: PAIR, allPairsLength: 1n },
            { logIndex: 1, txHash: hash(8), address: FACTORY },
          ),
        ),
      ],
      null,
      "history",
    );
    expect(classifyBlock(b)).toEqual([]);
    expect(tokenTouches(b).map((t) => [t.wallet, t.token_address])).toEqual([
      [ALICE, TOKEN_A],
      [BOB, TOKEN_A],
    ]);
    expect(poolsCreated(b).map((p) => [p.pool, p.tx_hash])).toEqual([[PAIR, hash(8)]]);
  });
});

describe("poolsCreated", () => {
  it("default: V2 pairs, V3 pools and V4 pools with their factory or manager, in log order", () => {
    const at = (logIndex: number, address: string) => ({ logIndex, address, txHash: hash(1) });
    const b = block(
      [tx(0, { to: FACTORY, input: "0xc9c65396" })],
      [
        log(
          encodeLog(
            EVENTS.v2PairCreated,
            { token0: TOKEN_A, token1: TOKEN_B, pair: PAIR, allPairsLength: 1n },
            at(0, FACTORY),
          ),
        ),
        log(
          encodeLog(
            EVENTS.v3PoolCreated,
            { token0: TOKEN_A, token1: TOKEN_B, fee: 500, tickSpacing: 10, pool: POOL },
            at(1, FACTORY),
          ),
        ),
        log(encodeLog(EVENTS.v2Sync, { reserve0: 0n, reserve1: 0n }, at(2, PAIR))),
        log(
          encodeLog(
            EVENTS.v4Initialize,
            {
              id: POOL_ID,
              currency0: ZERO,
              currency1: TOKEN_B,
              fee: 3000,
              tickSpacing: 60,
              hooks: ZERO,
              sqrtPriceX96: 2n ** 96n,
              tick: 0,
            },
            at(3, MANAGER),
          ),
        ),
      ],
    );
    const head = { chain_id: 8453, block_number: 26635101, tx_hash: hash(1) };
    expect(poolsCreated(b)).toEqual([
      { ...head, log_index: 0, factory: FACTORY, amm: "v2", pool: PAIR, token0: TOKEN_A, token1: TOKEN_B },
      {
        ...head,
        log_index: 1,
        factory: FACTORY,
        amm: "v3",
        pool: POOL,
        token0: TOKEN_A,
        token1: TOKEN_B,
        fee: 500,
        tick_spacing: 10,
      },
      {
        ...head,
        log_index: 3,
        factory: MANAGER,
        amm: "v4",
        pool: POOL_ID,
        token0: ZERO,
        token1: TOKEN_B,
        fee: 3000,
        tick_spacing: 60,
        hooks: ZERO,
        sqrt_price_x96: (2n ** 96n).toString(),
        tick: 0,
      },
    ]);
  });
});
