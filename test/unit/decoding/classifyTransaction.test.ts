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
  CAROL,
  CONTEXT,
  EVENTS,
  encodeLog,
  internal,
  MULTI,
  NFT,
  ROUTER,
  TOKEN_A,
  TOKEN_B,
  TX_HASH,
  transaction,
  WETH,
  ZERO,
} from "./fixtures.js";

const classify = (
  tx: TransactionLike,
  logs: ReadonlyArray<LogLike> = [],
  internalTransfers: ReadonlyArray<InternalTransferLike> | null = null,
  options: ClassifyOptions = {},
) => classifyTransaction(CONTEXT, tx, decodeLogs(logs), internalTransfers, options);

/** [type, wallet, token or spender, value] per activity: enough to read a whole transaction at a glance. */
const brief = (activities: ReadonlyArray<Activity>) =>
  activities.map((a) => {
    switch (a.type) {
      case "swap":
        return [
          a.type,
          a.wallet_address,
          `${a.from_token_address}->${a.to_token_address}`,
          `${a.from_token_value}->${a.to_token_value}`,
        ];
      case "approve":
        return [a.type, a.wallet_address, a.spender, a.value ?? a.id ?? String(a.approved)];
      case "call":
        return [a.type, a.wallet_address, a.call_type, a.function_selector];
      default:
        return [a.type, a.wallet_address, a.token_address, a.value];
    }
  });

describe("classifyTransaction", () => {
  it("default: a plain native transfer is a send and a receive carrying the transaction context", () => {
    const activities = classify(transaction({ to: BOB, value: "1000" }));
    expect(activities).toEqual([
      {
        activity_id: `1:${TX_HASH}:tx:send:${ALICE}`,
        wallet_address: ALICE,
        chain_id: 1,
        block_number: 100,
        block_time: "2025-02-20T13:52:29+00:00",
        tx_hash: TX_HASH,
        tx_index: 0,
        tx_from: ALICE,
        tx_to: BOB,
        tx_value: "1000",
        tx_success: true,
        type: "send",
        asset_type: "native",
        token_address: "native",
        from: ALICE,
        to: BOB,
        value: "1000",
      },
      expect.objectContaining({
        activity_id: `1:${TX_HASH}:tx:receive:${BOB}`,
        type: "receive",
        wallet_address: BOB,
      }),
    ]);
  });

  it("behavior: an ERC-20 transfer call is a send and a receive with log_index, plus an incoming call for the token", () => {
    const log = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 1_000_000n }, { logIndex: 4 });
    const tx = transaction({ to: TOKEN_A, input: `0xa9059cbb${"00".repeat(64)}` });
    const activities = classify(tx, [log]);
    expect(brief(activities)).toEqual([
      ["send", ALICE, TOKEN_A, "1000000"],
      ["receive", BOB, TOKEN_A, "1000000"],
      ["call", TOKEN_A, "incoming", "0xa9059cbb"],
    ]);
    expect(activities[0]).toMatchObject({ log_index: 4, asset_type: "erc20", from: ALICE, to: BOB });
    expect(activities[2]).toMatchObject({ from: ALICE, to: TOKEN_A, value: "0", data: tx.input });
  });

  it("behavior: a multi-transfer transaction yields activities in log order, whatever order the events come in", () => {
    const logs = [
      encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 1n }, { logIndex: 1 }),
      encodeLog(
        EVENTS.erc20Transfer,
        { from: ALICE, to: CAROL, value: 2n },
        { logIndex: 2, address: TOKEN_B },
      ),
      encodeLog(EVENTS.erc721Transfer, { from: BOB, to: ALICE, tokenId: 7n }, { logIndex: 3, address: NFT }),
    ];
    const tx = transaction({ to: ROUTER, input: "0x12345678" });
    const forward = classify(tx, logs);
    expect(brief(forward)).toEqual([
      ["send", ALICE, TOKEN_A, "1"],
      ["receive", BOB, TOKEN_A, "1"],
      ["send", ALICE, TOKEN_B, "2"],
      ["receive", CAROL, TOKEN_B, "2"],
      ["send", BOB, NFT, "1"],
      ["receive", ALICE, NFT, "1"],
      ["call", ROUTER, "incoming", "0x12345678"],
    ]);
    expect(forward[5]).toMatchObject({ asset_type: "erc721", id: "7" });
    expect(classify(tx, [...logs].reverse())).toEqual(forward);
    expect(new Set(forward.map((a) => a.activity_id)).size).toBe(forward.length);
  });

  it("behavior: transfers from the zero address are mints and to it burns, for every standard", () => {
    const logs = [
      encodeLog(EVENTS.erc20Transfer, { from: ZERO, to: ALICE, value: 5n }, { logIndex: 0 }),
      encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: ZERO, value: 2n }, { logIndex: 1 }),
      encodeLog(EVENTS.erc721Transfer, { from: ZERO, to: ALICE, tokenId: 1n }, { logIndex: 2, address: NFT }),
      encodeLog(
        EVENTS.transferBatch,
        { operator: ALICE, from: ALICE, to: ZERO, ids: [1n, 2n, 3n], values: [4n, 0n, 6n] },
        { logIndex: 3, address: MULTI },
      ),
    ];
    const activities = classify(transaction({ input: "0xdeadbeef" }), logs);
    expect(brief(activities)).toEqual([
      ["mint", ALICE, TOKEN_A, "5"],
      ["burn", ALICE, TOKEN_A, "2"],
      ["mint", ALICE, NFT, "1"],
      ["burn", ALICE, MULTI, "4"],
      ["burn", ALICE, MULTI, "6"],
      ["call", ROUTER, "incoming", "0xdeadbeef"],
    ]);
    expect(activities.map((a) => a.activity_id.split(":")[2])).toEqual([
      "l0",
      "l1",
      "l2",
      "l3.0",
      "l3.2",
      "tx",
    ]);
    expect(activities[4]).toMatchObject({ asset_type: "erc1155", id: "3", from: ALICE, to: ZERO });
  });

  it("behavior: zero-amount transfers (address poisoning) produce nothing; the sender's call remains", () => {
    const log = encodeLog(EVENTS.erc20Transfer, { from: BOB, to: CAROL, value: 0n });
    expect(brief(classify(transaction({ to: TOKEN_A, input: "0x23b872dd" }), [log]))).toEqual([
      ["call", ALICE, "outgoing", "0x23b872dd"],
      ["call", TOKEN_A, "incoming", "0x23b872dd"],
    ]);
  });

  it("behavior: approvals are attributed to the owner, revocations included", () => {
    const logs = [
      encodeLog(
        EVENTS.erc20Approval,
        { owner: ALICE, spender: ROUTER, value: 2n ** 256n - 1n },
        { logIndex: 0 },
      ),
      encodeLog(
        EVENTS.erc721Approval,
        { owner: ALICE, approved: BOB, tokenId: 8n },
        { logIndex: 1, address: NFT },
      ),
      encodeLog(
        EVENTS.approvalForAll,
        { owner: ALICE, operator: CAROL, approved: false },
        { logIndex: 2, address: NFT },
      ),
    ];
    const activities = classify(transaction({ to: TOKEN_A, input: "0x095ea7b3" }), logs);
    expect(brief(activities)).toEqual([
      ["approve", ALICE, ROUTER, (2n ** 256n - 1n).toString()],
      ["approve", ALICE, BOB, "8"],
      ["approve", ALICE, CAROL, "false"],
      ["call", TOKEN_A, "incoming", "0x095ea7b3"],
    ]);
    expect(activities[0]).toMatchObject({
      asset_type: "erc20",
      token_address: TOKEN_A,
      from: ALICE,
      log_index: 0,
    });
    expect(activities[1]).toMatchObject({ asset_type: "erc721", token_address: NFT });
    expect(activities[1]).not.toHaveProperty("value");
  });

  it("behavior: an Approval emitted by transferFrom next to its Transfer is not an approve; a permit before it is", () => {
    const permit = encodeLog(
      EVENTS.erc20Approval,
      { owner: ALICE, spender: ROUTER, value: 10n },
      { logIndex: 0 },
    );
    const spend = encodeLog(
      EVENTS.erc20Approval,
      { owner: ALICE, spender: ROUTER, value: 0n },
      { logIndex: 1 },
    );
    const transfer = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 10n }, { logIndex: 2 });
    const nftClear = encodeLog(
      EVENTS.erc721Approval,
      { owner: BOB, approved: ZERO, tokenId: 3n },
      { logIndex: 3, address: NFT },
    );
    const nftMove = encodeLog(
      EVENTS.erc721Transfer,
      { from: BOB, to: CAROL, tokenId: 3n },
      { logIndex: 4, address: NFT },
    );
    const activities = classify(transaction({ from: ROUTER, to: CAROL, input: "0x01" }), [
      permit,
      spend,
      transfer,
      nftClear,
      nftMove,
    ]);
    expect(brief(activities)).toEqual([
      ["approve", ALICE, ROUTER, "10"],
      ["send", ALICE, TOKEN_A, "10"],
      ["receive", BOB, TOKEN_A, "10"],
      ["send", BOB, NFT, "1"],
      ["receive", CAROL, NFT, "1"],
      ["call", ROUTER, "outgoing", null],
    ]);
  });

  it("behavior: internal transfers count as native sends and receives when traces are present", () => {
    const tx = transaction({ to: ROUTER, value: "50", input: "0xabcdef01" });
    const activities = classify(
      tx,
      [],
      [internal(ROUTER, BOB, 30n), internal(ROUTER, CAROL, 0n), internal(ROUTER, CAROL, 20n)],
    );
    expect(brief(activities)).toEqual([
      ["send", ALICE, "native", "50"],
      ["receive", ROUTER, "native", "50"],
      ["send", ROUTER, "native", "30"],
      ["receive", BOB, "native", "30"],
      ["send", ROUTER, "native", "20"],
      ["receive", CAROL, "native", "20"],
    ]);
    expect(activities.map((a) => a.activity_id.split(":")[2])).toEqual(["tx", "tx", "i0", "i0", "i2", "i2"]);
    expect(activities[2]).not.toHaveProperty("log_index");
  });

  it("behavior: a reverted transaction is one outgoing call of its sender, with tx_success false", () => {
    const log = encodeLog(EVENTS.erc20Transfer, { from: ALICE, to: BOB, value: 1n });
    const tx = transaction({ to: BOB, value: "7", success: false });
    expect(classify(tx, [log], [internal(BOB, CAROL, 1n)])).toEqual([
      expect.objectContaining({
        activity_id: `1:${TX_HASH}:tx:call:${ALICE}`,
        type: "call",
        call_type: "outgoing",
        wallet_address: ALICE,
        to: BOB,
        value: "7",
        data: "0x",
        function_selector: null,
        tx_success: false,
      }),
    ]);
  });

  it("behavior: a contract creation with no other activity is an outgoing call to the created contract", () => {
    const tx = transaction({ to: null, input: "0x6080604052", contract_address: CAROL });
    expect(classify(tx)).toEqual([
      expect.objectContaining({
        type: "call",
        call_type: "outgoing",
        wallet_address: ALICE,
        to: CAROL,
        tx_to: null,
      }),
    ]);
  });

  it("behavior: a zero-value transaction without calldata (a nonce cancel) produces nothing", () => {
    expect(classify(transaction({ to: ALICE }))).toEqual([]);
  });

  it("args: a wrapped-native Deposit is a mint and a Withdrawal a burn only for the configured token", () => {
    const deposit = encodeLog(EVENTS.deposit, { dst: ALICE, wad: 9n }, { logIndex: 0, address: WETH });
    const tx = transaction({ to: WETH, value: "9", input: "0xd0e30db0" });
    expect(brief(classify(tx, [deposit], null, { wrappedNative: WETH }))).toEqual([
      ["send", ALICE, "native", "9"],
      ["receive", WETH, "native", "9"],
      ["mint", ALICE, WETH, "9"],
    ]);
    expect(brief(classify(tx, [deposit]))).toEqual([
      ["send", ALICE, "native", "9"],
      ["receive", WETH, "native", "9"],
    ]);
    const withdrawal = encodeLog(EVENTS.withdrawal, { src: ALICE, wad: 4n }, { logIndex: 0, address: WETH });
    const unwrap = transaction({ to: WETH, input: "0x2e1a7d4d" });
    expect(
      brief(classify(unwrap, [withdrawal], [internal(WETH, ALICE, 4n)], { wrappedNative: WETH })),
    ).toEqual([
      ["send", WETH, "native", "4"],
      ["receive", ALICE, "native", "4"],
      ["burn", ALICE, WETH, "4"],
    ]);
  });

  it("behavior: a Deposit with a twin Transfer from the zero address is counted once", () => {
    const deposit = encodeLog(EVENTS.deposit, { dst: ALICE, wad: 9n }, { logIndex: 0, address: WETH });
    const twin = encodeLog(
      EVENTS.erc20Transfer,
      { from: ZERO, to: ALICE, value: 9n },
      { logIndex: 1, address: WETH },
    );
    const tx = transaction({ to: WETH, value: "9", input: "0xd0e30db0" });
    expect(
      brief(classify(tx, [deposit, twin], null, { wrappedNative: WETH })).filter((a) => a[0] === "mint"),
    ).toEqual([["mint", ALICE, WETH, "9"]]);
  });

  it("behavior: a self-transfer is a send and a receive of the same wallet, with distinct ids", () => {
    const activities = classify(transaction({ to: ALICE, value: "3" }));
    expect(brief(activities)).toEqual([
      ["send", ALICE, "native", "3"],
      ["receive", ALICE, "native", "3"],
    ]);
    expect(activities[0]!.activity_id).not.toBe(activities[1]!.activity_id);
  });

  it("behavior: the token contract's incoming call is left out when it has an activity of its own", () => {
    const tx = transaction({ to: TOKEN_B, input: "0x40c10f19" });
    const log = encodeLog(EVENTS.erc20Transfer, { from: TOKEN_B, to: BOB, value: 1n }, { address: TOKEN_B });
    expect(brief(classify(tx, [log]))).toEqual([
      ["send", TOKEN_B, TOKEN_B, "1"],
      ["receive", BOB, TOKEN_B, "1"],
      ["call", ALICE, "outgoing", "0x40c10f19"],
    ]);
  });
});
