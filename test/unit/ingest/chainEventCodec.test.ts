import { describe, expect, it } from "vitest";
import { ChainEventAssembler, encodeChainEvent } from "../../../src/ingest/chainEventCodec.js";

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

  it("behavior: large events are deflated and, past the payload limit, split into parts that reassemble", () => {
    const json = bigEvent(20_000);
    const messages = encodeChainEvent(json, "1:0xb", 64 * 1024);
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.every((m) => m.data.length <= 64 * 1024)).toBe(true);
    expect(new Set(messages.map((m) => m.msgID)).size).toBe(messages.length);
    const assembler = new ChainEventAssembler();
    const outputs = messages.map((m) => assembler.push({ subject: "chain.1.block", ...m }));
    expect(outputs.slice(0, -1).every((o) => o === undefined)).toBe(true);
    expect(outputs.at(-1)).toEqual(JSON.parse(json));
  });

  it("error: a missing part drops the incomplete event instead of corrupting the next", () => {
    const first = encodeChainEvent(bigEvent(20_000), "1:0xc", 64 * 1024);
    const second = encodeChainEvent('{"number":2}', "1:0xd", 64 * 1024);
    const assembler = new ChainEventAssembler();
    assembler.push({ subject: "s", ...first[0]! });
    expect(assembler.push({ subject: "s", ...first[2]! })).toBeUndefined();
    expect(assembler.push({ subject: "s", ...second[0]! })).toEqual({ number: 2 });
  });
});
