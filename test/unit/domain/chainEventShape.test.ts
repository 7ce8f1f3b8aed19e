import { describe, expect, it } from "vitest";
import { isChainBlock, isChainEvent, isChainReorg } from "../../../src/domain/chainEventShape.js";
import { syntheticBlock } from "../../support/syntheticBlocks.js";

const HASH = `0x${"ab".repeat(32)}`;
const log = {
  transaction_hash: HASH,
  transaction_index: 0,
  log_index: 0,
  address: `0x${"11".repeat(20)}`,
  topics: [HASH],
  data: "0x",
};
const block = { ...syntheticBlock(1, 10, `0x${"22".repeat(20)}`, `0x${"33".repeat(20)}`), logs: [log] };
const reorg = {
  version: 1,
  chain_id: 1,
  common_ancestor: { number: 9, hash: HASH },
  removed: [{ number: 10, hash: HASH }],
};

describe("chain event shapes", () => {
  it("default: blocks and reorgs as ingestion publishes them pass", () => {
    expect(isChainBlock(block, 1)).toBe(true);
    expect(isChainBlock({ ...block, source: "history", transactions: [] }, 1)).toBe(true);
    expect(isChainReorg(reorg, 1)).toBe(true);
    expect(isChainEvent("chain.1.block", block)).toBe(true);
    expect(isChainEvent("chain.1.reorg", reorg)).toBe(true);
  });

  it("error: anything a consumer would trip over does not", () => {
    const broken: Array<[string, unknown]> = [
      ["null", null],
      ["an array", [block]],
      ["another chain's block", { ...block, chain_id: 2 }],
      ["a fractional number", { ...block, number: 1.5 }],
      ["logs missing", { ...block, logs: undefined }],
      ["a log without topics", { ...block, logs: [{ ...log, topics: "0x" }] }],
      ["a topic that is not hex", { ...block, logs: [{ ...log, topics: [12] }] }],
      [
        "a transaction without a sender",
        { ...block, transactions: [{ ...block.transactions[0], from: null }] },
      ],
      ["an unknown source", { ...block, source: "future" }],
      ["internal transfers as an object", { ...block, internal_transfers: {} }],
    ];
    for (const [what, data] of broken) expect(isChainEvent("chain.1.block", data), what).toBe(false);
    expect(isChainEvent("chain.1.reorg", { ...reorg, removed: [{ number: "10", hash: HASH }] })).toBe(false);
    expect(isChainEvent("chain.1.reorg", { ...reorg, common_ancestor: null })).toBe(false);
    expect(isChainEvent("chain.1.other", block)).toBe(false);
  });
});
