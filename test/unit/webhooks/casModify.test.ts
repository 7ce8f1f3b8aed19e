import type { KV, KvEntry } from "@nats-io/kv";
import { Effect, Either } from "effect";
import { describe, expect, it } from "vitest";
import { makeKeyedTurns } from "../../../src/lib/keyedTurns.js";
import { casModify } from "../../../src/webhooks/store/kvOps.js";

/**
 * A KV bucket in memory with the broker's revision checks, answering each call
 * a moment later as a broker round trip does, so that concurrent writers interleave.
 */
const memoryKv = () => {
  const values = new Map<string, { value: string; revision: number }>();
  let sequence = 0;
  let writes = 0;
  const later = () => new Promise((r) => setTimeout(r, 1));
  const write = (key: string, value: string, expected: number | undefined) => {
    writes++;
    if (values.get(key)?.revision !== expected) throw new Error("wrong last sequence: 0");
    values.set(key, { value, revision: ++sequence });
    return sequence;
  };
  const kv = {
    get: async (key: string): Promise<KvEntry | null> => {
      await later();
      const stored = values.get(key);
      if (stored === undefined) return null;
      return { operation: "PUT", revision: stored.revision, string: () => stored.value } as KvEntry;
    },
    create: async (key: string, value: string) => {
      await later();
      return write(key, value, undefined);
    },
    update: async (key: string, value: string, revision: number) => {
      await later();
      return write(key, value, revision);
    },
  };
  return { kv: kv as unknown as KV, writes: () => writes, value: (key: string) => values.get(key)?.value };
};

const increment = (kv: KV) =>
  casModify(kv, "counter", (entry) =>
    Either.right({
      kind: "write" as const,
      value: String(Number(entry?.string() ?? "0") + 1),
      result: undefined,
    }),
  );

describe("changes of one KV key", () => {
  it("behavior: a hundred concurrent changes in one process all land, each written on its first try", async () => {
    const store = memoryKv();
    await Effect.runPromise(
      Effect.all(
        Array.from({ length: 100 }, () => increment(store.kv)),
        { concurrency: "unbounded" },
      ),
    );
    expect(store.value("counter")).toBe("100");
    // Racing each other, writer n would lose n - 1 revision checks (and wait out a backoff after each).
    expect(store.writes()).toBe(100);
  });

  it("behavior: changes of different keys do not wait for each other; one key's run in the order asked", async () => {
    const inTurn = makeKeyedTurns();
    const log: Array<string> = [];
    const step = (name: string) =>
      Effect.gen(function* () {
        log.push(`${name} start`);
        yield* Effect.sleep(5);
        log.push(`${name} end`);
      });
    await Effect.runPromise(
      Effect.all([inTurn("a", step("a1")), inTurn("a", step("a2")), inTurn("b", step("b1"))], {
        concurrency: "unbounded",
      }),
    );
    expect(log.indexOf("b1 start")).toBeLessThan(log.indexOf("a1 end"));
    expect(log.filter((line) => line.startsWith("a"))).toEqual(["a1 start", "a1 end", "a2 start", "a2 end"]);
  });
});
