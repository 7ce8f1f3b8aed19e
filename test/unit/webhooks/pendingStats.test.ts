import { afterEach, describe, expect, it, vi } from "vitest";
import { PendingStats, type StatsChange } from "../../../src/webhooks/outbox/PendingStats.js";
import { ZERO_COUNTERS } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import type { DeliveryStats } from "../../../src/webhooks/outbox/StoredDelivery.js";

/** Where the stats are "stored": one value per webhook, and every write made. */
const store = () => {
  const values = new Map<string, DeliveryStats>();
  const writes: Array<string> = [];
  let failNext = 0;
  const write = async (webhookId: string, change: StatsChange) => {
    await Promise.resolve();
    if (failNext > 0) {
      failNext--;
      throw new Error("bucket unreachable");
    }
    writes.push(webhookId);
    values.set(webhookId, change(values.get(webhookId) ?? { counters: ZERO_COUNTERS, recent: [] }));
  };
  const failOnce = () => {
    failNext = 1;
  };
  return { values, writes, write, failOnce };
};

/** One delivered attempt of `id`. */
const delivered =
  (id: string): StatsChange =>
  (stats) => ({
    counters: { ...stats.counters, delivered: stats.counters.delivered + 1 },
    recent: [
      ...stats.recent,
      {
        delivery_id: id,
        at: "2026-01-01T00:00:00.000Z",
        retry_index: 0,
        status: 200,
        latency_ms: 1,
        outcome: "delivered",
        error: null,
      },
    ],
  });

describe("PendingStats", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("behavior: a webhook's attempts in one interval are written as one write, in the order they were recorded", async () => {
    vi.useFakeTimers();
    const s = store();
    const pending = new PendingStats(s.write, 250);
    for (let i = 0; i < 10; i++) pending.add("wh_a", delivered(`msg_${i}`));
    pending.add("wh_b", delivered("msg_b"));
    expect(s.writes).toEqual([]);
    await vi.advanceTimersByTimeAsync(250);
    expect(s.writes.sort()).toEqual(["wh_a", "wh_b"]);
    expect(s.values.get("wh_a")?.counters.delivered).toBe(10);
    expect(s.values.get("wh_a")?.recent.map((a) => a.delivery_id)).toEqual(
      Array.from({ length: 10 }, (_, i) => `msg_${i}`),
    );
  });

  it("behavior: flush writes what is held at once, so a reader in this process sees every recorded attempt", async () => {
    const s = store();
    const pending = new PendingStats(s.write, 60_000);
    pending.add("wh_a", delivered("msg_1"));
    pending.add("wh_a", delivered("msg_2"));
    await pending.flush("wh_a");
    expect(s.values.get("wh_a")?.counters.delivered).toBe(2);
    expect(s.writes).toEqual(["wh_a"]);
  });

  it("behavior: a failed write keeps its changes, ahead of newer ones, for the next write", async () => {
    const s = store();
    const pending = new PendingStats(s.write, 60_000);
    pending.add("wh_a", delivered("msg_1"));
    s.failOnce();
    await pending.flush("wh_a");
    expect(s.values.get("wh_a")).toBeUndefined();
    pending.add("wh_a", delivered("msg_2"));
    await pending.flush("wh_a");
    expect(s.values.get("wh_a")?.recent.map((a) => a.delivery_id)).toEqual(["msg_1", "msg_2"]);
  });

  it("behavior: a deleted webhook's held changes are dropped, not written", async () => {
    const s = store();
    const pending = new PendingStats(s.write, 60_000);
    pending.add("wh_a", delivered("msg_1"));
    pending.forget("wh_a");
    await pending.flushAll();
    expect(s.writes).toEqual([]);
  });
});
