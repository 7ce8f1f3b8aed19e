import { brotliCompressSync, deflateRawSync } from "node:zlib";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import {
  ChainEventAssembler,
  decodeChainEvent,
  EARLIER_PARTS_HEADER,
  EVENT_HEADER,
  encodeChainEvent,
  type IncomingMessage,
  namingEarlierParts,
  type OutgoingMessage,
  readSplitEvent,
  SplitPart,
  UnreadableChainEvent,
} from "../../../src/ingest/chainEventCodec.js";

const bigEvent = (logs: number) =>
  JSON.stringify({
    number: 1,
    logs: Array.from({ length: logs }, (_, i) => ({
      i,
      data: `0x${i.toString(16).padStart(64, "7")}${Math.random().toString(16).slice(2)}`,
    })),
  });

/** A stream holding `entries` at their sequences: the message handed to a reader, and reads by sequence. */
const stream = (entries: ReadonlyArray<readonly [number, OutgoingMessage]>, subject = "chain.1.block") => {
  const held = new Map<number, IncomingMessage>(
    entries.map(([seq, m]) => [seq, { subject, data: m.data, headers: m.headers }]),
  );
  return {
    at: (seq: number) => ({ seq, ...held.get(seq)! }),
    read: async (seq: number): Promise<IncomingMessage | null> => held.get(seq) ?? null,
    put: (seq: number, message: IncomingMessage) => held.set(seq, message),
  };
};

/** A split event's parts as ingest wrote them before parts were named: no event, no sequences. */
const unnamed = (messages: ReadonlyArray<OutgoingMessage>) =>
  messages.map((m) => {
    m.headers!.delete(EVENT_HEADER);
    return m;
  });

/** Decodes the part at `seq` and reads its event whole from there, as a reader acting on it does. */
const readAt = async (s: ReturnType<typeof stream>, seq: number) => {
  const decoded = decodeChainEvent(s.at(seq));
  expect(decoded).toBeInstanceOf(SplitPart);
  return readSplitEvent(decoded as SplitPart, s.read);
};

describe("chain event codec", () => {
  it("default: small events travel as plain JSON in one message", () => {
    const [message, ...rest] = encodeChainEvent('{"number":1}', "1:0xa", 1024 * 1024);
    expect(rest).toEqual([]);
    expect(message!.headers).toBeUndefined();
    expect(new ChainEventAssembler().push({ subject: "chain.1.block", ...message! })).toEqual({ number: 1 });
  });

  it("behavior: large events are compressed and, past the payload limit, split into parts that reassemble", () => {
    const json = bigEvent(20_000);
    const messages = encodeChainEvent(json, "1:0xb", 64 * 1024);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.every((m) => m.headers?.get("Content-Encoding") === "br")).toBe(true);
    expect(messages.reduce((sum, m) => sum + m.data.length, 0)).toBeLessThan(json.length / 2);
    expect(messages.every((m) => m.data.length <= 64 * 1024)).toBe(true);
    expect(new Set(messages.map((m) => m.msgID)).size).toBe(messages.length);
    const assembler = new ChainEventAssembler();
    const outputs = messages.map((m) => assembler.push({ subject: "chain.1.block", ...m }));
    expect(outputs.slice(0, -1).every((o) => o === undefined)).toBe(true);
    expect(outputs.at(-1)).toEqual(JSON.parse(json));
  });

  it("edge: a block encoded otherwise when read again names its parts otherwise; the same encoding, the same", () => {
    const ids = (json: string) => encodeChainEvent(json, "1:0xb", 64 * 1024).map((m) => m.msgID);
    const json = bigEvent(20_000);
    const first = ids(json);
    expect(ids(json)).toEqual(first);
    // Read again without part of it (its traces, say): parts stored anew, not dropped as duplicates.
    const other = ids(JSON.stringify({ ...JSON.parse(json), logs: JSON.parse(json).logs.slice(1_000) }));
    expect(other.filter((id) => first.includes(id))).toEqual([]);
  });

  it("behavior: deflated events, as ingest wrote them before brotli, still read", () => {
    const json = bigEvent(2_000);
    const h = natsHeaders();
    h.set("Content-Encoding", "deflate");
    const data = deflateRawSync(Buffer.from(json));
    expect(new ChainEventAssembler().push({ subject: "chain.1.block", data, headers: h })).toEqual(
      JSON.parse(json),
    );
  });

  it("error: a missing part drops the incomplete event instead of corrupting the next", () => {
    const first = encodeChainEvent(bigEvent(20_000), "1:0xc", 64 * 1024);
    const second = encodeChainEvent('{"number":2}', "1:0xd", 64 * 1024);
    const assembler = new ChainEventAssembler();
    assembler.push({ subject: "s", ...first[0]! });
    expect(assembler.push({ subject: "s", ...first[2]! })).toBeUndefined();
    expect(assembler.push({ subject: "s", ...second[0]! })).toEqual({ number: 2 });
  });

  it("error: bytes that cannot be an event come back as unreadable, never as a throw", () => {
    const headers = (entries: Record<string, string>) => {
      const h = natsHeaders();
      for (const [name, value] of Object.entries(entries)) h.set(name, value);
      return h;
    };
    // Past the assembler's inflation limit (256 MiB in service; 1 MiB here).
    const bomb = deflateRawSync(Buffer.alloc(2 * 1024 * 1024, 0x20));
    const brotliBomb = brotliCompressSync(Buffer.alloc(2 * 1024 * 1024, 0x20));
    const cases = [
      { data: Buffer.from("{{{") },
      { data: new Uint8Array([1, 2, 3]), headers: headers({ "Content-Encoding": "deflate" }) },
      { data: new Uint8Array([1, 2, 3]), headers: headers({ "Content-Encoding": "br" }) },
      { data: bomb, headers: headers({ "Content-Encoding": "deflate" }) },
      { data: brotliBomb, headers: headers({ "Content-Encoding": "br" }) },
      { data: Buffer.from("{}"), headers: headers({ "Svc-Parts": "1000000", "Svc-Part": "0" }) },
      { data: Buffer.from("{}"), headers: headers({ "Svc-Parts": "two", "Svc-Part": "0" }) },
    ];
    for (const message of cases) {
      const assembler = new ChainEventAssembler(1024 * 1024);
      expect(assembler.push({ subject: "chain.1.block", ...message })).toBeInstanceOf(UnreadableChainEvent);
      // And the next good event still reads.
      expect(assembler.push({ subject: "chain.1.block", data: Buffer.from('{"number":2}') })).toEqual({
        number: 2,
      });
    }
  });

  it("behavior: a split event's last part reads the others at the sequences it names, whatever lies between", async () => {
    const json = bigEvent(20_000);
    const parts = encodeChainEvent(json, "1:0xe", 64 * 1024);
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.every((m) => m.headers?.get(EVENT_HEADER) === "1:0xe")).toBe(true);
    // Another chain's events between the parts, and the second part stored after a retry.
    const seqs = parts.slice(0, -1).map((_, i) => (i === 1 ? 40 : 10 + i * 2));
    const last = namingEarlierParts(parts.at(-1)!, seqs);
    expect(last.headers?.get(EARLIER_PARTS_HEADER)).toBe(seqs.join(","));
    const s = stream([...parts.slice(0, -1).map((m, i) => [seqs[i]!, m] as const), [50, last]]);
    s.put(11, { subject: "chain.2.block", data: Buffer.from('{"number":2}') });
    expect(
      decodeChainEvent({ seq: 11, subject: "chain.2.block", data: Buffer.from('{"number":2}') }),
    ).toEqual({
      number: 2,
    });
    for (const seq of seqs) expect((decodeChainEvent(s.at(seq)) as SplitPart).isLast).toBe(false);
    expect(await readAt(s, 50)).toEqual(JSON.parse(json));
  });

  it("behavior: the last part keeps room to name where the others are, within the payload limit", () => {
    const maxPayload = 64 * 1024;
    const parts = encodeChainEvent(bigEvent(40_000), "1:0xf", maxPayload);
    const last = namingEarlierParts(
      parts.at(-1)!,
      parts.slice(1).map(() => Number.MAX_SAFE_INTEGER),
    );
    const headerBytes = [...last.headers!].reduce(
      (sum, [name, values]) => sum + values.reduce((n, v) => n + name.length + v.length + 4, 0),
      0,
    );
    // What nats-server counts against max_payload: headers and data (its framing fits in the rest).
    expect(last.data.length + headerBytes + last.msgID.length + 20).toBeLessThanOrEqual(
      maxPayload - 3 * 1024,
    );
  });

  it("behavior: parts written before parts were named are read as consecutive, from either end", async () => {
    const json = bigEvent(20_000);
    const parts = unnamed(encodeChainEvent(json, "1:0x10", 64 * 1024));
    const s = stream(parts.map((m, i) => [100 + i, m] as const));
    expect(await readAt(s, 100)).toEqual(JSON.parse(json));
    expect(await readAt(s, 100 + parts.length - 1)).toEqual(JSON.parse(json));
  });

  it("error: a part gone, or another message where a part should be, gives an unreadable event", async () => {
    const parts = encodeChainEvent(bigEvent(20_000), "1:0x11", 64 * 1024);
    const other = encodeChainEvent(bigEvent(20_000), "1:0x12", 64 * 1024);
    const seqs = parts.slice(0, -1).map((_, i) => 1 + i);
    const last = namingEarlierParts(parts.at(-1)!, seqs);
    // The first part dropped by the stream's retention.
    const gone = stream([...parts.slice(1, -1).map((m, i) => [2 + i, m] as const), [90, last]]);
    expect(await readAt(gone, 90)).toBeInstanceOf(UnreadableChainEvent);
    // Another event's part at a named sequence (a stream made again, its sequences reused).
    const swapped = stream([
      [1, other[0]!],
      ...parts.slice(1, -1).map((m, i) => [2 + i, m] as const),
      [90, last],
    ]);
    expect(await readAt(swapped, 90)).toBeInstanceOf(UnreadableChainEvent);
    // A named last part that does not say where the others are.
    expect(await readAt(stream([[90, parts.at(-1)!]]), 90)).toBeInstanceOf(UnreadableChainEvent);
    // Unnamed parts with another chain's event between them: not read as this event.
    const old = unnamed(encodeChainEvent(bigEvent(20_000), "1:0x13", 64 * 1024));
    const interleaved = stream([[1, old[0]!], ...old.slice(1).map((m, i) => [3 + i, m] as const)]);
    interleaved.put(2, { subject: "chain.2.block", data: Buffer.from('{"number":2}') });
    expect(await readAt(interleaved, 1)).toBeInstanceOf(UnreadableChainEvent);
    expect(await readAt(interleaved, 2 + old.length - 1)).toBeInstanceOf(UnreadableChainEvent);
  });
});
