import { describe, expect, it } from "vitest";
import type { Activity } from "../../../src/decoding/activities/Activity.js";
import {
  type ClassifyOptions,
  classifyTransaction,
  type TransactionLike,
} from "../../../src/decoding/activities/classifyTransaction.js";
import type { InternalTransferLike } from "../../../src/decoding/activities/collectMovements.js";
import { decodeLogs } from "../../../src/decoding/decodeLog.js";
import type { LogLike } from "../../../src/decoding/events/DecodedEvent.js";
import {
  ALICE,
  BOB,
  CONTEXT,
  EVENTS,
  encodeLog,
  internal,
  MANAGER,
  PAIR,
  PAIR_2,
  POOL,
  POOL_ID,
  ROUTER,
  TOKEN_A,
  TOKEN_B,
  TOKEN_C,
  transaction,
  WETH,
} from "./fixtures.js";

const classify = (
  tx: TransactionLike,
  logs: ReadonlyArray<LogLike>,
  internalTransfers: ReadonlyArray<InternalTransferLike> | null = null,
  options: ClassifyOptions = { wrappedNative: WETH },
) => classifyTransaction(CONTEXT, tx, decodeLogs(logs), internalTransfers, options);

const of = (activities: ReadonlyArray<Activity>, wallet: string) =>
  activities.filter((a) => a.wallet_address === wallet).map((a) => a.type);

const swapOf = (activities: ReadonlyArray<Activity>) => activities.find((a) => a.type === "swap");

const transfer = (token: string, from: string, to: string, value: bigint, logIndex: number) =>
  encodeLog(EVENTS.erc20Transfer, { from, to, value }, { address: token, logIndex });

const v2Swap = (
  pair: string,
  logIndex: number,
  amounts: { in0: bigint; in1: bigint; out0: bigint; out1: bigint },
  to: string,
) =>
  encodeLog(
    EVENTS.v2Swap,
    {
      sender: ROUTER,
      amount0In: amounts.in0,
      amount1In: amounts.in1,
      amount0Out: amounts.out0,
      amount1Out: amounts.out1,
      to,
    },
    { address: pair, logIndex },
  );

const sync = (pair: string, logIndex: number) =>
  encodeLog(EVENTS.v2Sync, { reserve0: 1n, reserve1: 1n }, { address: pair, logIndex });

const routerCall = (value = "0") => transaction({ to: ROUTER, value, input: "0x38ed1739" });

describe("swap classification", () => {
  it("default: a V2 token-to-token swap through a router is one swap of the sender with both legs", () => {
    const logs = [
      transfer(TOKEN_A, ALICE, PAIR, 100n, 0),
      transfer(TOKEN_B, PAIR, ALICE, 90n, 1),
      sync(PAIR, 2),
      v2Swap(PAIR, 3, { in0: 100n, in1: 0n, out0: 0n, out1: 90n }, ALICE),
    ];
    const activities = classify(routerCall(), logs);
    expect(swapOf(activities)).toEqual(
      expect.objectContaining({
        activity_id: `1:${logs[0]!.transaction_hash}:tx:swap:${ALICE}`,
        wallet_address: ALICE,
        from: ALICE,
        from_token_address: TOKEN_A,
        from_token_value: "100",
        to_token_address: TOKEN_B,
        to_token_value: "90",
        pools: [PAIR],
      }),
    );
    expect(of(activities, ALICE)).toEqual(["swap"]);
    expect(of(activities, PAIR)).toEqual(["receive", "send"]);
    expect(of(activities, ROUTER)).toEqual(["call"]);
  });

  it("behavior: a multi-hop V2 route nets to the first and last token and lists every pair", () => {
    const logs = [
      transfer(TOKEN_A, ALICE, PAIR, 100n, 0),
      transfer(TOKEN_B, PAIR, PAIR_2, 90n, 1),
      v2Swap(PAIR, 2, { in0: 100n, in1: 0n, out0: 0n, out1: 90n }, PAIR_2),
      transfer(TOKEN_C, PAIR_2, ALICE, 80n, 3),
      v2Swap(PAIR_2, 4, { in0: 90n, in1: 0n, out0: 0n, out1: 80n }, ALICE),
    ];
    expect(swapOf(classify(routerCall(), logs))).toMatchObject({
      from_token_address: TOKEN_A,
      to_token_address: TOKEN_C,
      to_token_value: "80",
      pools: [PAIR, PAIR_2],
    });
  });

  it("behavior: native in through a router that wraps it is a swap from `native`", () => {
    const logs = [
      encodeLog(EVENTS.deposit, { dst: ROUTER, wad: 1000n }, { address: WETH, logIndex: 0 }),
      transfer(WETH, ROUTER, PAIR, 1000n, 1),
      transfer(TOKEN_A, PAIR, ALICE, 7n, 2),
      sync(PAIR, 3),
      v2Swap(PAIR, 4, { in0: 0n, in1: 1000n, out0: 7n, out1: 0n }, ALICE),
    ];
    const activities = classify(routerCall("1000"), logs);
    expect(swapOf(activities)).toMatchObject({
      from_token_address: "native",
      from_token_value: "1000",
      to_token_address: TOKEN_A,
    });
    expect(of(activities, ALICE)).toEqual(["swap"]);
    expect(of(activities, ROUTER)).toEqual(["receive", "mint", "send"]);
  });

  it("behavior: with traces a refund of excess native is netted out", () => {
    const logs = [
      transfer(WETH, ROUTER, PAIR, 700n, 1),
      transfer(TOKEN_A, PAIR, ALICE, 7n, 2),
      v2Swap(PAIR, 3, { in0: 0n, in1: 700n, out0: 7n, out1: 0n }, ALICE),
    ];
    const traces = [internal(ROUTER, WETH, 700n), internal(ROUTER, ALICE, 300n)];
    expect(swapOf(classify(routerCall("1000"), logs, traces))).toMatchObject({
      from_token_address: "native",
      from_token_value: "700",
    });
  });

  it("args: native out is seen in traces when present, else inferred from the router's wrapped-native Withdrawal", () => {
    const logs = [
      transfer(TOKEN_A, ALICE, PAIR, 100n, 0),
      transfer(WETH, PAIR, ROUTER, 5n, 1),
      v2Swap(PAIR, 2, { in0: 100n, in1: 0n, out0: 0n, out1: 5n }, ROUTER),
      encodeLog(EVENTS.withdrawal, { src: ROUTER, wad: 5n }, { address: WETH, logIndex: 3 }),
    ];
    const expected = {
      from_token_address: TOKEN_A,
      from_token_value: "100",
      to_token_address: "native",
      to_token_value: "5",
    };
    const traced = classify(routerCall(), logs, [internal(WETH, ROUTER, 5n), internal(ROUTER, ALICE, 5n)]);
    expect(swapOf(traced)).toMatchObject(expected);
    expect(of(traced, ALICE)).toEqual(["swap"]);
    expect(swapOf(classify(routerCall(), logs))).toMatchObject(expected);
    const unconfigured = classify(routerCall(), logs, null, {});
    expect(swapOf(unconfigured)).toBeUndefined();
    expect(of(unconfigured, ALICE)).toEqual(["send"]);
  });

  it("behavior: a V3 swap (pool pays out before it is paid) is a swap", () => {
    const logs = [
      transfer(TOKEN_B, POOL, ALICE, 50n, 0),
      transfer(TOKEN_A, ALICE, POOL, 100n, 1),
      encodeLog(
        EVENTS.v3Swap,
        {
          sender: ROUTER,
          recipient: ALICE,
          amount0: 100n,
          amount1: -50n,
          sqrtPriceX96: 2n ** 96n,
          liquidity: 10n ** 18n,
          tick: -5,
        },
        { address: POOL, logIndex: 2 },
      ),
    ];
    const activities = classify(routerCall(), logs);
    expect(swapOf(activities)).toMatchObject({
      from_token_address: TOKEN_A,
      to_token_address: TOKEN_B,
      to_token_value: "50",
      pools: [POOL],
    });
    expect(of(activities, POOL)).toEqual(["send", "receive"]);
  });

  it("behavior: a V4 native-to-token swap through the PoolManager names the pool id", () => {
    const logs = [
      encodeLog(
        EVENTS.v4Swap,
        {
          id: POOL_ID,
          sender: ROUTER,
          amount0: -1000n,
          amount1: 500n,
          sqrtPriceX96: 2n ** 96n,
          liquidity: 1n,
          tick: 0,
          fee: 3000,
        },
        { address: MANAGER, logIndex: 0 },
      ),
      transfer(TOKEN_B, MANAGER, ALICE, 500n, 1),
    ];
    const activities = classify(routerCall("1000"), logs, [internal(ROUTER, MANAGER, 1000n)]);
    expect(swapOf(activities)).toMatchObject({
      from_token_address: "native",
      from_token_value: "1000",
      to_token_address: TOKEN_B,
      to_token_value: "500",
      pools: [POOL_ID],
    });
    expect(of(activities, MANAGER)).toEqual(["receive", "send"]);
  });

  it("behavior: without an AMM Swap event an exchange of tokens is sends and receives", () => {
    const logs = [transfer(TOKEN_A, ALICE, BOB, 100n, 0), transfer(TOKEN_B, BOB, ALICE, 90n, 1)];
    const activities = classify(routerCall(), logs);
    expect(swapOf(activities)).toBeUndefined();
    expect(of(activities, ALICE)).toEqual(["send", "receive"]);
  });

  it("behavior: two assets received (or two given) is not one swap", () => {
    const logs = [
      transfer(TOKEN_A, ALICE, PAIR, 100n, 0),
      transfer(TOKEN_B, PAIR, ALICE, 40n, 1),
      transfer(TOKEN_C, PAIR, ALICE, 40n, 2),
      v2Swap(PAIR, 3, { in0: 100n, in1: 0n, out0: 0n, out1: 40n }, ALICE),
    ];
    const activities = classify(routerCall(), logs);
    expect(swapOf(activities)).toBeUndefined();
    expect(of(activities, ALICE)).toEqual(["send", "receive", "receive"]);
  });

  it("behavior: the swap belongs to the transaction sender only; a swap paid to someone else is a send", () => {
    const logs = [
      transfer(TOKEN_A, ALICE, PAIR, 100n, 0),
      transfer(TOKEN_B, PAIR, BOB, 90n, 1),
      v2Swap(PAIR, 2, { in0: 100n, in1: 0n, out0: 0n, out1: 90n }, BOB),
    ];
    const activities = classify(routerCall(), logs);
    expect(swapOf(activities)).toBeUndefined();
    expect(of(activities, ALICE)).toEqual(["send"]);
    expect(of(activities, BOB)).toEqual(["receive"]);
  });
});
