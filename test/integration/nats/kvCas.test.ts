import { type KV, Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { Effect, Either } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KvContended, KvStoreFailed, kvCas } from "../../../src/nats/kvCas.js";
import { startBareNats } from "../../support/bareNats.js";

let nats: Awaited<ReturnType<typeof startBareNats>>;
let buckets = 0;

beforeAll(async () => {
  nats = await startBareNats();
});

afterAll(async () => {
  await nats?.stop();
});

const bucket = async (): Promise<{ kv: KV; name: string }> => {
  const name = `cas${++buckets}`;
  return { kv: await new Kvm(nats.nc).create(name), name };
};

/** Another process's handle on the same bucket: nothing but the broker orders its writes and ours. */
const otherHandle = async (name: string) => {
  const nc = await connect({ servers: nats.nc.getServer() });
  return { kv: await new Kvm(nc).open(name), close: () => nc.close() };
};

const increment = (kv: KV, key: string) =>
  kvCas(
    kv,
    key,
    (entry) =>
      Either.right({
        kind: "write" as const,
        value: String(Number(entry?.string() ?? "0") + 1),
        result: undefined,
      }),
    { maxAttempts: 100, backoffMs: (round) => Math.floor(Math.random() * (2 + round)) },
  );

describe("kvCas on a JetStream bucket", () => {
  it("behavior: writers racing on one key from two connections each land exactly once", async () => {
    const { kv, name } = await bucket();
    const other = await otherHandle(name);
    await Effect.runPromise(
      Effect.all(
        Array.from({ length: 30 }, (_, i) => increment(i % 2 === 0 ? kv : other.kv, "counter")),
        { concurrency: "unbounded" },
      ),
    );
    await other.close();
    expect((await kv.get("counter"))?.string()).toBe("30");
  });

  it("edge: a key another writer moves between every read and write gives up with KvContended after maxAttempts", async () => {
    const { kv } = await bucket();
    await kv.put("hot", "0");
    let decided = 0;
    const outcome = await Effect.runPromise(
      Effect.either(
        kvCas(
          kv,
          "hot",
          (entry) => {
            decided++;
            // Sent before this round's write on the same connection, so the broker applies it first.
            void kv.put("hot", `theirs ${decided}`);
            return Either.right({
              kind: "write" as const,
              value: `${entry?.string()} ours`,
              result: undefined,
            });
          },
          { maxAttempts: 4 },
        ),
      ),
    );
    expect(Either.isLeft(outcome) && outcome.left).toBeInstanceOf(KvContended);
    expect(decided).toBe(4);
    expect((await kv.get("hot"))?.string()).toBe("theirs 4");
  });

  it("behavior: keep writes nothing and answers the revision read; delete removes the key at that revision", async () => {
    const { kv } = await bucket();
    const revision = await kv.put("k", "v");
    const kept = await Effect.runPromise(
      kvCas(kv, "k", () => Either.right({ kind: "keep" as const, result: "kept" }), { maxAttempts: 3 }),
    );
    expect(kept).toEqual({ result: "kept", revision });
    expect((await kv.get("k"))?.revision).toBe(revision);
    await Effect.runPromise(
      kvCas(kv, "k", () => Either.right({ kind: "delete" as const, result: undefined }), { maxAttempts: 3 }),
    );
    expect((await kv.get("k"))?.operation).toBe("DEL");
  });

  it("edge: a bucket that cannot answer fails with KvStoreFailed at once, without deciding or retrying", async () => {
    const { name } = await bucket();
    const other = await otherHandle(name);
    await other.close();
    let decided = 0;
    const outcome = await Effect.runPromise(
      Effect.either(
        kvCas(
          other.kv,
          "k",
          () => {
            decided++;
            return Either.right({ kind: "write" as const, value: "v", result: undefined });
          },
          { maxAttempts: 50 },
        ),
      ),
    );
    expect(Either.isLeft(outcome) && outcome.left).toBeInstanceOf(KvStoreFailed);
    expect(decided).toBe(0);
  });
});
