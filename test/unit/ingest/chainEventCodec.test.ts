import { brotliCompressSync, deflateRawSync } from "node:zlib";
import { headers as natsHeaders } from "@nats-io/transport-node";
import { describe, expect, it } from "vitest";
import {
  ChainEventAssembler,
  encodeChainEvent,
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
});
