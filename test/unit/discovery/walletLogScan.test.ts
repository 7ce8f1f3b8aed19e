import { Effect } from "effect";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import { matchesFilter } from "../../../src/chains/rpc/getLogs.js";
import type { RpcAnswer } from "../../../src/chains/rpc/jsonRpcExchange.js";
import type { RpcLog } from "../../../src/chains/rpc/RpcTypes.js";
import {
  type FilterWidth,
  filterWidth,
  MAX_STRETCH_NFT_IDS,
  MAX_STRETCH_TOKENS,
  RAISE_AFTER,
  scanWalletsStretch,
} from "../../../src/discovery/walletLogScan.js";
import { fakeChainRpc } from "../../support/chainRpc.js";

const TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const TRANSFER_SINGLE = "0xc3d58168c5ae7397731d063d5bbf3d657854427343f4c083240f7aacaa2d0f62";
const TRANSFER_BATCH = "0x4a39dc06d4c0dbc64b70af90fd698a233a518aa5d07e595d983b8c0526c8f7fb";
const word = (value: string) => `0x${value.slice(2).padStart(64, "0")}`;
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const token = (n: number) => `0x${(0xa000 + n).toString(16).padStart(40, "0")}`;

let logIndex = 0;
const log = (address: string, block: number, topics: ReadonlyArray<string>): RpcLog => ({
  address,
  topics: [...topics],
  data: "0x",
  blockNumber: `0x${block.toString(16)}`,
  blockHash: word(`0x${block.toString(16)}`),
  transactionHash: word("0x01"),
  transactionIndex: "0x0",
  logIndex: `0x${(logIndex++).toString(16)}`,
});

/**
 * A node holding `logs` that answers eth_getLogs as a node would (matchesFilter), and refuses a
 * filter with more than `widest` alternatives in one topic position the way geth does (an error
 * without a code of its own). Counts the eth_getLogs it was asked and the ones it refused.
 */
const logsNode = (
  logs: ReadonlyArray<RpcLog>,
  widest = Number.POSITIVE_INFINITY,
  /** Refuses a filter this answers true for, as it refuses one too wide. */
  refuses: (topics: ReadonlyArray<string | string[] | null>, call: number) => boolean = () => false,
) => {
  const asked = { calls: 0, refused: 0 };
  const answer = (params: ReadonlyArray<unknown>): RpcAnswer => {
    asked.calls++;
    const filter = params[0] as {
      fromBlock: Hex;
      toBlock: Hex;
      topics: ReadonlyArray<string | string[] | null>;
    };
    if (
      filter.topics.some((topic) => Array.isArray(topic) && topic.length > widest) ||
      refuses(filter.topics, asked.calls)
    ) {
      asked.refused++;
      return {
        ok: false,
        fault: { reason: "BadResponse", detail: "exceed max addresses or topics per search position" },
      };
    }
    const from = Number(filter.fromBlock);
    const to = Number(filter.toBlock);
    return {
      ok: true,
      result: logs.filter(
        (l) => from <= Number(l.blockNumber) && Number(l.blockNumber) <= to && matchesFilter(l, filter),
      ),
    };
  };
  const rpc = fakeChainRpc((requests) => ({
    kind: "answers",
    answers: requests.map((request) => answer(request.params)),
  }));
  return { rpc, asked };
};

const scan = (
  node: ReturnType<typeof logsNode>,
  wallets: ReadonlyArray<string>,
  options: { nft?: ReadonlySet<string>; width?: FilterWidth; from?: number; to?: number } = {},
) =>
  Effect.runPromise(
    scanWalletsStretch(
      node.rpc,
      wallets,
      options.from ?? 0,
      options.to ?? 1_000,
      options.nft ?? new Set(),
      options.width,
    ),
  );

const tokensOf = (read: Awaited<ReturnType<typeof scan>>, who: string) =>
  (read.found.get(who)?.tokens ?? []).map((t) => `${t.token}@${t.block}:${t.standard}`).sort();

describe("a batch of wallets' log scan", () => {
  it("behavior: one filter names every wallet, and each wallet gets exactly its own transfers: a transfer between two of them counts for both, an ERC-1155 operator for neither", async () => {
    const [a, b, c, outsider] = [wallet(1), wallet(2), wallet(3), wallet(9)];
    const node = logsNode([
      log(token(1), 10, [TRANSFER, word(a), word(b), word("0x05")]), // ERC-721 a -> b
      log(token(2), 20, [TRANSFER, word(outsider), word(c)]), // ERC-20 to c
      log(token(2), 5, [TRANSFER, word(c), word(c)]), // c to itself, earlier
      log(token(3), 30, [TRANSFER_SINGLE, word(a), word(outsider), word(outsider)]), // a only operates
      log(token(4), 40, [TRANSFER_SINGLE, word(outsider), word(outsider), word(b)]), // ERC-1155 to b
      log(token(5), 50, [TRANSFER, word(outsider), word(outsider)]), // nobody of the batch
      log(token(6), 60, [TRANSFER_SINGLE, word(outsider), word(c), word(outsider)]), // ERC-1155 from c
      log(token(7), 70, [TRANSFER_BATCH, word(outsider), word(outsider), word(a)]), // ERC-1155 batch to a
    ]);
    const read = await scan(node, [a, b, c], { nft: new Set([token(1)]), to: 100 });
    // Four filters for the whole batch, not four per wallet.
    expect(node.asked.calls).toBe(4);
    expect(read.failed.size).toBe(0);
    expect(tokensOf(read, a)).toEqual([`${token(1)}@10:erc721`, `${token(7)}@70:erc1155`].sort());
    expect(tokensOf(read, b)).toEqual([`${token(1)}@10:erc721`, `${token(4)}@40:erc1155`].sort());
    expect(tokensOf(read, c)).toEqual([`${token(2)}@5:erc20`, `${token(6)}@60:erc1155`].sort());
    // Only the receiver gets the NFT's id, and a self-transfer is one log.
    expect(read.found.get(b)?.nftIds).toEqual(new Map([[token(1), [5n]]]));
    expect(read.found.get(a)?.nftIds.size).toBe(0);
    expect(read.found.get(c)?.logs).toBe(3);
  });

  it("edge: a busy address keeps at most MAX_STRETCH_TOKENS tokens of a stretch and says it left some out; its batch-mates are whole", async () => {
    const [busy, quiet, outsider] = [wallet(1), wallet(2), wallet(9)];
    const many = Array.from({ length: MAX_STRETCH_TOKENS + 5 }, (_, i) =>
      log(token(100 + i), 10 + (i % 50), [TRANSFER, word(outsider), word(busy)]),
    );
    const node = logsNode([
      ...many,
      log(token(1), 20, [TRANSFER, word(outsider), word(quiet)]),
      log(token(2), 30, [TRANSFER, word(quiet), word(busy)]),
    ]);
    const read = await scan(node, [busy, quiet], { to: 100 });
    expect(read.found.get(busy)?.tokens).toHaveLength(MAX_STRETCH_TOKENS);
    expect(read.found.get(busy)?.capped).toBe(true);
    expect(tokensOf(read, quiet)).toEqual([`${token(1)}@20:erc20`, `${token(2)}@30:erc20`].sort());
    expect(read.found.get(quiet)?.capped).toBe(false);
  });

  it("edge: a wallet keeps at most MAX_STRETCH_NFT_IDS position ids of one manager a stretch, and says it left some out", async () => {
    const [busy, outsider] = [wallet(1), wallet(9)];
    const manager = token(50);
    const node = logsNode(
      Array.from({ length: MAX_STRETCH_NFT_IDS + 3 }, (_, i) =>
        log(manager, 10, [TRANSFER, word(outsider), word(busy), word(`0x${(i + 1).toString(16)}`)]),
      ),
    );
    const read = await scan(node, [busy], { nft: new Set([manager]), to: 100 });
    expect(read.found.get(busy)?.nftIds.get(manager)).toHaveLength(MAX_STRETCH_NFT_IDS);
    expect(read.found.get(busy)?.capped).toBe(true);
  });

  it("behavior: a node that refuses the batch's width is asked in halves, and the next stretch goes at the width it took", async () => {
    const wallets = Array.from({ length: 8 }, (_, i) => wallet(i + 1));
    const node = logsNode(
      wallets.map((w, i) => log(token(i), 100 + i, [TRANSFER, word(wallet(99)), word(w)])),
      3,
    );
    const width = filterWidth(8);
    const first = await scan(node, wallets, { width, from: 0, to: 500 });
    for (const [i, w] of wallets.entries())
      expect(tokensOf(first, w)).toEqual([`${token(i)}@${100 + i}:erc20`]);
    expect(node.asked.refused).toBeGreaterThan(0);
    // 8 refused, 4 refused, 2 answered.
    expect(width.most).toBe(2);
    const refusedBefore = node.asked.refused;
    const callsBefore = node.asked.calls;
    const second = await scan(node, wallets, { width, from: 501, to: 1_000 });
    expect(node.asked.refused).toBe(refusedBefore);
    // 8 wallets at 2 a batch: 4 batches of 4 filters.
    expect(node.asked.calls - callsBefore).toBe(16);
    for (const w of wallets) expect(tokensOf(second, w)).toEqual([]);
  });

  it("edge: a wallet refused alone fails alone and the rest are read; a second one stops the stretch there, the wallets answered keeping their finds", async () => {
    const wallets = Array.from({ length: 6 }, (_, i) => wallet(i + 1));
    const nodeRefusing = (...refused: ReadonlyArray<string>) =>
      logsNode(
        wallets.map((w, i) => log(token(i), 100 + i, [TRANSFER, word(wallet(99)), word(w)])),
        Number.POSITIVE_INFINITY,
        (topics) =>
          refused.some((w) => topics.some((t) => t === word(w) || (Array.isArray(t) && t.includes(word(w))))),
      );
    const width = filterWidth(2);
    const one = await scan(nodeRefusing(wallets[2]!), wallets, { width });
    expect([...one.failed.keys()]).toEqual([wallets[2]]);
    expect(String(one.failed.get(wallets[2]!))).toMatch(/exceed max addresses/);
    for (const i of [0, 1, 3, 4, 5])
      expect(tokensOf(one, wallets[i]!)).toEqual([`${token(i)}@${100 + i}:erc20`]);
    // A wallet refused alone says nothing of the width, whether it comes first in its pair or last.
    expect(width.most).toBe(2);
    const last = await scan(nodeRefusing(wallets[3]!), wallets, { width });
    expect([...last.failed.keys()]).toEqual([wallets[3]]);
    expect(width.most).toBe(2);

    const two = await scan(nodeRefusing(wallets[2]!, wallets[4]!), wallets, { width });
    expect([...two.found.keys()].sort()).toEqual([wallets[0], wallets[1], wallets[3]].sort());
    expect([...two.failed.keys()]).toEqual([wallets[2], wallets[4], wallets[5]]);
    expect(width.most).toBe(2);
  });

  it("edge: a width lowered by one refusal is doubled again after a run of stretches answered in full, and a real cap is met once a run", async () => {
    const wallets = Array.from({ length: 8 }, (_, i) => wallet(i + 1));
    // A gateway's one garbled answer, on the first call: the batch of 8 is halved once.
    const glitch = logsNode([], Number.POSITIVE_INFINITY, (_, call) => call === 1);
    const width = filterWidth(8);
    await scan(glitch, wallets, { width });
    expect(width.most).toBe(4);
    for (let stretch = 1; stretch < RAISE_AFTER; stretch++) await scan(glitch, wallets, { width });
    expect(width.most).toBe(4);
    await scan(glitch, wallets, { width });
    expect(width.most).toBe(8);
    // A node that takes 4 at most: raised to 8 after a run, refused once, back to 4.
    const capped = logsNode([], 4);
    const kept = filterWidth(8);
    await scan(capped, wallets, { width: kept });
    expect(kept.most).toBe(4);
    const refusedBefore = capped.asked.refused;
    for (let stretch = 0; stretch < RAISE_AFTER; stretch++) await scan(capped, wallets, { width: kept });
    expect(kept.most).toBe(8);
    const read = await scan(capped, wallets, { width: kept });
    expect(read.failed.size).toBe(0);
    expect(kept.most).toBe(4);
    expect(capped.asked.refused - refusedBefore).toBeGreaterThan(0);
  });

  it("edge: a single wallet's refusal fails it, and the width stays where it was", async () => {
    const node = logsNode([], 0);
    const width: FilterWidth = filterWidth(4);
    const read = await scan(node, [wallet(1), wallet(2)], { width });
    expect(read.found.size).toBe(0);
    expect([...read.failed.keys()]).toEqual([wallet(1), wallet(2)]);
    expect(width.most).toBe(4);
  });
});
