import { Effect, Fiber, Logger, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { loadCursorSecret, type SecretStore } from "../../../src/balances/CursorSecret.js";

const run = <A>(effect: Effect.Effect<A>, lines: Array<string> = []) =>
  Effect.runPromise(
    effect.pipe(
      Effect.provide(
        Logger.replace(
          Logger.defaultLogger,
          Logger.make(({ message }) => lines.push(String(Array.isArray(message) ? message[0] : message))),
        ),
      ),
      Effect.provide(TestContext.TestContext),
    ),
  );

const theirs = Buffer.alloc(32, 7).toString("base64");

describe("the cursor secret shared by API workers", () => {
  it("behavior: the worker whose create wins uses its own secret, which is what it stored", async () => {
    let stored: string | null = null;
    const store: SecretStore = {
      create: async (value) => {
        stored = value;
      },
      readLatest: async () => stored,
    };
    const secret = await run(loadCursorSecret(store));
    expect(Buffer.from(secret).toString("base64")).toBe(stored);
    expect(secret).toHaveLength(32);
  });

  it("behavior: a worker that loses the create uses the winner's secret", async () => {
    const store: SecretStore = {
      create: () => Promise.reject(new Error("wrong last sequence: 1")),
      readLatest: async () => theirs,
    };
    expect(Buffer.from(await run(loadCursorSecret(store))).toString("base64")).toBe(theirs);
  });

  it("error: a refused create with nothing readable yet, or a failing bucket, is tried again with a warning, not a crash", async () => {
    const lines: Array<string> = [];
    let reads = 0;
    const store: SecretStore = {
      create: () => Promise.reject(new Error("wrong last sequence: 1")),
      readLatest: async () => {
        reads++;
        if (reads === 1) return null;
        if (reads === 2) throw new Error("TimeoutError: timeout");
        return theirs;
      },
    };
    const secret = await run(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(loadCursorSecret(store));
        yield* TestClock.adjust("10 seconds");
        return yield* Fiber.join(fiber);
      }),
      lines,
    );
    expect(Buffer.from(secret).toString("base64")).toBe(theirs);
    expect(reads).toBe(3);
    expect(lines).toEqual([
      "creating or reading the cursor secret failed (another worker's create was refused, yet nothing is stored); retrying",
      "creating or reading the cursor secret failed (TimeoutError: timeout); retrying",
    ]);
  });
});
