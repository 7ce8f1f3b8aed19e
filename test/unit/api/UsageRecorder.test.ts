import type { JetStreamClient } from "@nats-io/jetstream";
import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { make } from "../../../src/usage/UsageRecorder.js";

interface Published {
  readonly msgId: string;
  readonly requests: number;
  readonly cu: number;
}

/** A JetStream publisher that refuses everything while `down` is set, and records what it stored. */
const fakeStream = () => {
  const stored = new Map<string, Published>();
  const state = { down: false, attempts: 0 };
  const js = {
    publish: async (_subject: string, data: string, options: { msgID: string }) => {
      state.attempts += 1;
      if (state.down) throw new Error("no responders");
      const record = JSON.parse(data) as { requests: number; cu: number };
      // Nats-Msg-Id de-duplication, as the stream does it.
      if (!stored.has(options.msgID)) stored.set(options.msgID, { msgId: options.msgID, ...record });
      return { seq: stored.size, duplicate: false, stream: "USAGE" };
    },
  } as unknown as JetStreamClient;
  return { js, stored, state };
};

const event = { teamId: "t1", keyId: "k1", endpoint: "getBalances", cu: 3, failed: false };

describe("UsageRecorder", () => {
  it("bytes: a broker outage of a thousand flushes holds two records, and loses no usage", async () => {
    const stream = fakeStream();
    const recorder = make(stream.js, () => Date.UTC(2026, 0, 1, 12));
    stream.state.down = true;
    for (let i = 0; i < 1_000; i++) {
      recorder.record(event);
      await Effect.runPromise(recorder.flush);
    }
    stream.state.attempts = 0;
    await Effect.runPromise(recorder.flush);
    // One record waiting for its retry; the usage since then is counted in one more, held back.
    expect(stream.state.attempts).toBe(1);

    stream.state.down = false;
    await Effect.runPromise(recorder.flush);
    await Effect.runPromise(recorder.flush);
    const records = [...stream.stored.values()];
    expect(records.length).toBeLessThanOrEqual(2);
    expect(records.reduce((a, r) => a + r.requests, 0)).toBe(1_000);
    expect(records.reduce((a, r) => a + r.cu, 0)).toBe(3_000);
  });

  it("behavior: a retry keeps its message id, so a publish whose ack was lost is not counted twice", async () => {
    const stream = fakeStream();
    const recorder = make(stream.js, () => Date.UTC(2026, 0, 1, 12));
    recorder.record(event);
    const lostAck = stream.js.publish;
    let first = true;
    (stream.js as { publish: typeof lostAck }).publish = async (subject, data, options) => {
      const ack = await lostAck(subject, data as string, options as { msgID: string });
      if (first) {
        first = false;
        throw new Error("timeout");
      }
      return ack;
    };
    await Effect.runPromise(recorder.flush);
    await Effect.runPromise(recorder.flush);
    expect([...stream.stored.values()].map((r) => r.requests)).toEqual([1]);
  });
});
