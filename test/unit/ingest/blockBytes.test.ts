import { headers as natsHeaders } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { BASE, MAINNET } from "../../../bench/replay/chainProfiles.js";
import { makeBlock } from "../../../bench/replay/syntheticChain.js";
import type { CallFrame, RpcBlock, RpcReceipt, RpcTransaction } from "../../../src/chains/rpc/RpcTypes.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { BLOCK_BYTES_TYPE, readBlockBytes, writeBlockBytes } from "../../../src/ingest/blockBytes.js";
import {
  ChainEventAssembler,
  COMPRESS_ABOVE,
  decodeChainEvent,
  ENCODING_HEADER,
  encodeBlockEvent,
  readSplitEvent,
  SplitPart,
  TYPE_HEADER,
  UnreadableChainEvent,
} from "../../../src/ingest/chainEventCodec.js";
import { normalizeHistoryBlock, normalizeLiveBlock } from "../../../src/ingest/normalizeBlock.js";
import { MalformedBytes } from "../../../src/lib/byteReader.js";

/** A synthetic block of `profile` as ingest builds it from the node's answers. */
const liveBlock = (profile: typeof BASE, number: number, traces = profile.traces): ChainBlock => {
  const made = makeBlock(profile, number, 0, 0, 1_800_000_000 + number);
  return normalizeLiveBlock(
    8453,
    JSON.parse(made.full) as RpcBlock<RpcTransaction>,
    JSON.parse(made.receipts) as ReadonlyArray<RpcReceipt>,
    traces ? (JSON.parse(made.traces) as ReadonlyArray<{ txHash?: string; result?: CallFrame }>) : null,
  );
};

/** What a reader of the JSON message gets: the block as JSON carries it. */
const asJson = (block: ChainBlock) => JSON.parse(JSON.stringify(block));

describe("block bytes", () => {
  it("default: Base- and mainnet-sized blocks read back equal to their JSON, in a third of the bytes or less", () => {
    for (const block of [liveBlock(BASE, 7), liveBlock(MAINNET, 8), liveBlock(BASE, 9, true)]) {
      const bytes = writeBlockBytes(block);
      expect(readBlockBytes(bytes)).toStrictEqual(asJson(block));
      expect(bytes.length).toBeLessThan(JSON.stringify(block).length / 2.5);
    }
  });

  it("history blocks, null fields, empty calldata and traces read back as written", () => {
    const live = liveBlock(BASE, 11, true);
    const edge: ChainBlock = {
      ...live,
      transactions: live.transactions.map((tx, i) =>
        i === 0
          ? { ...tx, to: null, input: "0x", contract_address: `0x${"ab".repeat(20)}`, success: false }
          : tx,
      ),
      internal_transfers: [],
    };
    const history = normalizeHistoryBlock(
      8453,
      {
        number: "0x10",
        hash: live.hash,
        parentHash: live.parent_hash,
        timestamp: "0x5",
        transactions: [],
      } as never,
      [],
    );
    for (const block of [edge, history, { ...history, logs: live.logs }])
      expect(readBlockBytes(writeBlockBytes(block))).toStrictEqual(asJson(block));
  });

  it("hex that is not lower-case whole bytes comes back exactly as it went in", () => {
    const live = liveBlock(BASE, 12);
    const odd = ["0xABCDEF", "0xabc", "0x12zz", "12ab", "", "0x"];
    const block: ChainBlock = {
      ...live,
      logs: live.logs.map((log, i) => ({ ...log, data: odd[i % odd.length]! })),
      transactions: live.transactions.map((tx, i) => ({ ...tx, input: odd[(i + 1) % odd.length]! })),
    };
    expect(readBlockBytes(writeBlockBytes(block))).toStrictEqual(asJson(block));
  });

  it("a block the format cannot hold is published as JSON instead", () => {
    const live = liveBlock(BASE, 13);
    const block = { ...live, transactions: [{ ...live.transactions[0]!, nonce: -1 }] };
    expect(() => writeBlockBytes(block)).toThrow(RangeError);
    const [message] = encodeBlockEvent(block, "8453:0x1", 1024 * 1024);
    expect(message!.headers?.get(TYPE_HEADER) ?? "").toBe("");
    expect(new ChainEventAssembler().push({ subject: "chain.8453.block", ...message! })).toStrictEqual(
      asJson(block),
    );
  });

  it("travels with its content type, compressed only when large, in parts read whole at the last", async () => {
    const base = liveBlock(BASE, 14);
    const [small, ...none] = encodeBlockEvent(base, "8453:0xa", 1024 * 1024);
    expect(none).toEqual([]);
    expect(small!.headers?.get(TYPE_HEADER)).toBe(BLOCK_BYTES_TYPE);
    expect(small!.headers?.get(ENCODING_HEADER)).toBe("");
    expect(small!.data.length).toBeLessThan(COMPRESS_ABOVE);
    expect(decodeChainEvent({ subject: "chain.8453.block", seq: 1, ...small! })).toStrictEqual(asJson(base));

    const block = liveBlock(MAINNET, 14);
    const [whole] = encodeBlockEvent(block, "1:0xa", 1024 * 1024);
    expect(whole!.headers?.get(TYPE_HEADER)).toBe(BLOCK_BYTES_TYPE);
    expect(whole!.headers?.get(ENCODING_HEADER)).toBe("br");
    expect(whole!.data.length).toBeLessThan(writeBlockBytes(block).length / 1.2);
    expect(decodeChainEvent({ subject: "chain.1.block", seq: 1, ...whole! })).toStrictEqual(asJson(block));

    const parts = encodeBlockEvent(block, "1:0xa", 16 * 1024);
    expect(parts.length).toBeGreaterThan(2);
    const held = new Map(parts.map((part, i) => [10 + 2 * i, { subject: "chain.1.block", ...part }]));
    const lastSeq = 10 + 2 * (parts.length - 1);
    const last = held.get(lastSeq)!;
    const h = natsHeaders();
    for (const [name, values] of last.headers ?? []) for (const value of values) h.append(name, value);
    h.set("Svc-Part-Seqs", [...held.keys()].slice(0, -1).join(","));
    const split = decodeChainEvent({ ...last, headers: h, seq: lastSeq });
    expect(split).toBeInstanceOf(SplitPart);
    expect(await readSplitEvent(split as SplitPart, async (seq) => held.get(seq) ?? null)).toStrictEqual(
      asJson(block),
    );
  });

  it("bytes that are not a block are unreadable, never a throw or an allocation of what they claim", () => {
    const bytes = writeBlockBytes(liveBlock(BASE, 15));
    const h = natsHeaders();
    h.set(TYPE_HEADER, BLOCK_BYTES_TYPE);
    const read = (data: Uint8Array) =>
      decodeChainEvent({ subject: "chain.8453.block", seq: 1, data, headers: h });
    expect(read(bytes.subarray(0, bytes.length - 1))).toBeInstanceOf(UnreadableChainEvent);
    expect(read(Buffer.concat([bytes, Buffer.from([0])]))).toBeInstanceOf(UnreadableChainEvent);
    // A transaction count of 2^50 in a 20-byte message.
    const huge = Buffer.from([1, 1, 1, 1, 1, 0, 0, 0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]);
    expect(read(huge)).toBeInstanceOf(UnreadableChainEvent);
    expect(() => readBlockBytes(Buffer.from([2]))).toThrow(MalformedBytes);
    // A source byte that is neither live (0) nor history (1): not read as either.
    const small = writeBlockBytes({ ...liveBlock(BASE, 16), chain_id: 1, number: 16, timestamp: 5 });
    expect(small[5]).toBe(0);
    small[5] = 2;
    expect(() => readBlockBytes(small)).toThrow(MalformedBytes);
    const other = natsHeaders();
    other.set(TYPE_HEADER, "application/x-unknown");
    expect(
      decodeChainEvent({ subject: "chain.8453.block", seq: 1, data: bytes, headers: other }),
    ).toBeInstanceOf(UnreadableChainEvent);
  });
});
