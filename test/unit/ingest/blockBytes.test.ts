import { brotliCompressSync } from "node:zlib";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import { BASE, MAINNET } from "../../../bench/replay/chainProfiles.js";
import { makeBlock } from "../../../bench/replay/syntheticChain.js";
import type { CallFrame, RpcBlock, RpcReceipt, RpcTransaction } from "../../../src/chains/rpc/RpcTypes.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import {
  BLOCK_BYTES_TYPE,
  MOST_BLOCK_BYTES,
  MOST_IN_BLOCK_BYTES,
  readBlockBytes,
  writeBlockBytes,
} from "../../../src/ingest/blockBytes.js";
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
import { ByteWriter } from "../../../src/lib/byteWriter.js";

/** `n` as the format writes an integer (LEB128). */
const leb = (n: number): Array<number> => {
  const out = new ByteWriter(16);
  out.uint(n);
  return [...out.bytes()];
};

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
    const long = `0x${"ab".repeat(200)}`;
    const odd = [
      "0xABCDEF",
      "0xabc",
      "0x12zz",
      "12ab",
      "",
      "0x",
      // Characters from 128 up whose low 7 bits are a digit's code ("0" is 0x30, "°" is 0xb0, "¹" 0xb9).
      "0x\u00b0\u00b1",
      "0x1\u00b9",
      // And from U+0100 up, whose low byte is one ("\u4e30"): Buffer's hex writer would take them.
      "0x\u4e30\u4e31",
      // Past the short strings written by the loop: upper case or a stray character near the end.
      `${long}Ab`,
      `${long}0g`,
      `${long}\u00b0\u00b1`,
      `${long}\u4e30\u4e31`,
    ];
    const amounts = ["1\u00e9", "\u0661\u0662", "9".repeat(131), `${"9".repeat(129)}\u00e9`];
    const block: ChainBlock = {
      ...live,
      logs: live.logs.map((log, i) => ({ ...log, data: odd[i % odd.length]! })),
      transactions: live.transactions.map((tx, i) => ({
        ...tx,
        input: odd[(i + 1) % odd.length]!,
        value: amounts[i % amounts.length]!,
      })),
    };
    expect(readBlockBytes(writeBlockBytes(block))).toStrictEqual(asJson(block));
  });

  it("lower-case hex of whole bytes is written as its bytes, short or long; any other as text", () => {
    const written = (hex: string) => {
      const out = new ByteWriter(16);
      out.hex(hex);
      return [...out.bytes()];
    };
    const hash = `0x${"a1".repeat(32)}`;
    expect(written(hash)).toStrictEqual([...leb(64), ...Buffer.from(hash.slice(2), "hex")]);
    const calldata = `0x${"0f".repeat(300)}`;
    expect(written(calldata)).toStrictEqual([...leb(600), ...Buffer.from(calldata.slice(2), "hex")]);
    for (const text of [hash.toUpperCase().replace("0X", "0x"), `${calldata}0G`, "0x\u00b0\u00b1"])
      expect(written(text)).toStrictEqual([
        ...leb(2 * Buffer.byteLength(text) + 1),
        ...Buffer.from(text, "utf8"),
      ]);
  });

  it("a block the format cannot hold, or would not read back the same, is published as JSON instead", () => {
    const live = liveBlock(BASE, 13);
    const [tx] = live.transactions;
    const [log] = live.logs;
    for (const block of [
      { ...live, transactions: [{ ...tx!, nonce: -1 }] },
      // Text UTF-8 cannot hold as it is (a lone surrogate, which JSON keeps).
      { ...live, transactions: [{ ...tx!, value: "1\ud800" }] },
      { ...live, transactions: [{ ...tx!, input: "0x\udc00" }] },
      // A lone surrogate past the short strings, where hex is checked otherwise ("\ud830" ends in 0x30).
      { ...live, transactions: [{ ...tx!, input: `0x${"ab".repeat(100)}1\ud830` }] },
      // A null where readers take a value, more topics than a log has, a source readers do not know.
      { ...live, transactions: [{ ...tx!, from: null as unknown as string }] },
      { ...live, logs: [{ ...log!, topics: [...log!.topics, ...log!.topics, ...log!.topics].slice(0, 5) }] },
      { ...live, source: "replay" as ChainBlock["source"] },
    ]) {
      expect(() => writeBlockBytes(block)).toThrow(RangeError);
      const [message] = encodeBlockEvent(block, "8453:0x1", 1024 * 1024);
      expect(message!.headers?.get(TYPE_HEADER) ?? "").toBe("");
      expect(new ChainEventAssembler().push({ subject: "chain.8453.block", ...message! })).toStrictEqual(
        asJson(block),
      );
    }
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
    // A log of 5 topics (the EVM gives at most 4), and more logs than any block holds, each a byte.
    const header = [1, 1, 0x85, 0x42, 1, 1, 0, 0, 0, 0];
    // One log: its transaction named (a new, empty hash), index 0, a new empty address, `topics`
    // references to that hash, empty data; then no internal transfers.
    const oneLog = (topics: number) =>
      Buffer.from([...header, 1, 0, 0, 0, 0, 0, 0, 0, topics, ...Array<number>(topics).fill(2), 0, 0]);
    expect(() => readBlockBytes(oneLog(4))).not.toThrow();
    expect(() => readBlockBytes(oneLog(5))).toThrow(MalformedBytes);
    const logs = MOST_IN_BLOCK_BYTES.logs + 1;
    const many = Buffer.concat([Buffer.from([...header, ...leb(logs)]), Buffer.alloc(8 * logs)]);
    expect(() => readBlockBytes(many)).toThrow(/over the most allowed/);
    // A count of items the bytes left cannot hold at their fewest bytes each.
    const short = Buffer.concat([Buffer.from([...header, ...leb(1000)]), Buffer.alloc(1000 * 5)]);
    expect(() => readBlockBytes(short)).toThrow(/exceeds what is left/);
    // A block of one transaction whose calldata is over what any block as bytes takes: a few KB
    // compressed, not inflated past that bound, so unreadable.
    const calldata = MOST_BLOCK_BYTES + 1024;
    const tx = [0, 0, 0, 0, 1, ...leb(1), 48, ...leb(2 * calldata)];
    const tail = [0, 0, 1, ...leb(1), 48, ...leb(1), 48, 1, 0, 0];
    const bomb = brotliCompressSync(
      Buffer.concat([
        Buffer.from([...header.slice(0, -1), 1, ...tx]),
        Buffer.alloc(calldata),
        Buffer.from(tail),
      ]),
    );
    const compressedHeaders = natsHeaders();
    compressedHeaders.set(TYPE_HEADER, BLOCK_BYTES_TYPE);
    compressedHeaders.set(ENCODING_HEADER, "br");
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(
      decodeChainEvent({ subject: "chain.8453.block", seq: 1, data: bomb, headers: compressedHeaders }),
    ).toBeInstanceOf(UnreadableChainEvent);
    const other = natsHeaders();
    other.set(TYPE_HEADER, "application/x-unknown");
    expect(
      decodeChainEvent({ subject: "chain.8453.block", seq: 1, data: bytes, headers: other }),
    ).toBeInstanceOf(UnreadableChainEvent);
  });
});
