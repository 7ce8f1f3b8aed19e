import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi } from "vitest";
import { createActor, SimulatedClock, waitFor } from "xstate";
import { deliverQueue, webhookMachine } from "../../../src/webhooks/actors/webhookMachine.js";
import { attemptDelivery, classify } from "../../../src/webhooks/delivery/attemptDelivery.js";
import { DeliveryCharges } from "../../../src/webhooks/delivery/DeliveryCharges.js";
import { ATTEMPTS_PER_SIGNAL, deadlineSignals } from "../../../src/webhooks/delivery/deadlineSignals.js";
import { deliveryHeaders } from "../../../src/webhooks/delivery/deliveryHeaders.js";
import { MAX_RESPONSE_BYTES, makeHttpSender } from "../../../src/webhooks/delivery/HttpSender.js";
import { QueueDoorbell } from "../../../src/webhooks/delivery/QueueDoorbell.js";
import {
  DEFAULT_RETRY_SCHEDULE_MS,
  parseRetryAfter,
  parseRetrySchedule,
  retryDelay,
} from "../../../src/webhooks/delivery/retrySchedule.js";
import { splitBodies } from "../../../src/webhooks/notifier/deliveryBodies.js";
import type { Outbox } from "../../../src/webhooks/outbox/Outbox.js";
import type { QueuedDelivery } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import {
  generateSecret,
  rotateSecrets,
  signingSecrets,
} from "../../../src/webhooks/secrets/signingSecret.js";
import { makeHostAllowList } from "../../../src/webhooks/targets/hostAllowList.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

const delivery = (overrides: Partial<QueuedDelivery> = {}): QueuedDelivery => ({
  seq: 1,
  order: "0000000000001-00000000000001-00000",
  id: "msg_0123456789abcdef0123456789abcdef",
  webhook_id: "01900000-0000-7000-8000-000000000001",
  team_id: "TEAM",
  type: "activities",
  chain_id: 1,
  block_number: 10,
  block_hash: `0x${"ab".repeat(32)}`,
  removed: false,
  events: 1,
  body: '{"activities":[{"type":"send","note":"é ✓ \\u0000"}]}',
  created_at: 0,
  attempts: 0,
  next_attempt_at: 0,
  last_status: null,
  last_error: null,
  ...overrides,
});

describe("delivery signing", () => {
  it("behavior: the standardwebhooks library verifies our requests, with either secret during rotation", () => {
    const old = generateSecret();
    const rotated = rotateSecrets({ current: old, previous: null }, generateSecret(), Date.now());
    const d = delivery();
    const headers = deliveryHeaders(d, signingSecrets(rotated, Date.now()), Date.now());
    expect(headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    for (const secret of [old, rotated.current])
      expect(new Webhook(secret).verify(d.body, headers)).toBeTruthy();
    expect(() => new Webhook(generateSecret()).verify(d.body, headers)).toThrow();
    expect(() => new Webhook(old).verify(`${d.body} `, headers)).toThrow();
    const later = deliveryHeaders({ ...d, attempts: 3 }, [rotated.current], Date.now() + 60_000);
    expect(later["webhook-id"]).toBe(headers["webhook-id"]);
    expect(later["svc-webhook-retry-index"]).toBe("3");
  });
});

describe("retry policy", () => {
  it("default: the Svix-like schedule with ±20 % jitter, then dead-letter", () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE_MS, 1, 0)).toBe(4_000);
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE_MS, 1, 0.999_999)).toBe(6_000);
    expect(retryDelay(DEFAULT_RETRY_SCHEDULE_MS, 8, 0.5)).toBeUndefined();
    expect(parseRetrySchedule("5s, 5m,2h,100ms")).toEqual([5_000, 300_000, 7_200_000, 100]);
    expect(parseRetrySchedule("5")).toBeUndefined();
    expect(parseRetrySchedule("")).toBeUndefined();
  });

  it("args: Retry-After as seconds or a date, capped at an hour; garbage ignored", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("999999999", now)).toBe(3_600_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });

  it("behavior: 2xx delivers, 410 disables, 3xx and no answer retry, the last failure dead-letters", () => {
    const schedule = [1_000, 2_000];
    const result = (status: number | null, headers = {}) => ({ status, headers, error: null, latencyMs: 1 });
    expect(classify(result(204), delivery(), schedule, 0, 0.5)).toEqual({ kind: "delivered" });
    expect(classify(result(410), delivery(), schedule, 0, 0.5)).toEqual({ kind: "gone" });
    expect(classify(result(302), delivery(), schedule, 0, 0.5)).toEqual({ kind: "retry", at: 1_000 });
    expect(classify(result(null), delivery({ attempts: 1 }), schedule, 0, 0.5)).toEqual({
      kind: "retry",
      at: 2_000,
    });
    expect(classify(result(429, { "retry-after": "7" }), delivery(), schedule, 0, 0.5)).toEqual({
      kind: "retry",
      at: 7_000,
    });
    expect(classify(result(500), delivery({ attempts: 2 }), schedule, 0, 0.5)).toEqual({
      kind: "deadLettered",
    });
  });
});

describe("charging delivered events", () => {
  /** Attempts of one delivery: the receiver's answer to each and whether its record is stored or times out. */
  const attempts = async (steps: ReadonlyArray<readonly [number, "stored" | "timeout"]>) => {
    const charged: Array<string> = [];
    const charges = new DeliveryCharges((d) => charged.push(d.id));
    const plan = steps.map(([, record]) => record);
    const outbox = {
      recordAttempt: async () => {
        if (plan.shift() === "timeout") throw new Error("TIMEOUT");
      },
    } as unknown as Outbox;
    const sent: Array<number> = [];
    for (let i = 0; i < steps.length; i++)
      await attemptDelivery(
        {
          outbox,
          sender: {
            post: async () => {
              sent.push(i);
              return { status: steps[i]![0], headers: {}, error: null, latencyMs: 1 };
            },
          },
          schedule: [1_000, 1_000, 1_000],
          now: () => 0,
          random: () => 0,
          charges,
          markGone: async () => {},
          sealer: { reveal: (stored) => stored },
        },
        webhookRecord(),
        delivery(),
      ).catch(() => undefined);
    return { charged, sent };
  };

  it("behavior: a delivery sent again because its record timed out is charged once", async () => {
    // The first record may have been stored all the same: the delivery is charged at its 2xx.
    expect((await attempts([[200, "timeout"]])).charged).toHaveLength(1);
    const again = await attempts([
      [200, "timeout"],
      [200, "timeout"],
      [503, "stored"],
      [200, "stored"],
    ]);
    expect(again.sent).toHaveLength(4);
    expect(again.charged).toHaveLength(1);
    expect((await attempts([[200, "stored"]])).charged).toHaveLength(1);
    expect((await attempts([[503, "stored"]])).charged).toHaveLength(0);
  });
});

describe("bodies", () => {
  it("behavior: events are split into bodies under the size bound, in order, none lost", () => {
    const events = Array.from({ length: 100 }, (_, i) => ({ event_id: `e${i}`, pad: "x".repeat(1_000) }));
    const bodies = splitBodies("activities", events, 10_000);
    expect(bodies.length).toBeGreaterThan(10);
    expect(bodies.every((b) => Buffer.byteLength(b.body) <= 10_000)).toBe(true);
    const ids = bodies.flatMap((b) =>
      (JSON.parse(b.body).activities as Array<{ event_id: string }>).map((e) => e.event_id),
    );
    expect(ids).toEqual(events.map((e) => e.event_id));
    expect(bodies.reduce((n, b) => n + b.events, 0)).toBe(100);
  });
});

describe("send-time SSRF guard", () => {
  it("error: loopback is refused unless allow-listed, by IP literal and by name after DNS; nothing reaches it", async () => {
    let hits = 0;
    const server = createServer((_, res) => {
      hits += 1;
      res.end("ok");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const strict = makeHttpSender({ allowedHosts: makeHostAllowList([]) });
    const literal = await strict.post(`http://127.0.0.1:${port}/`, {}, "{}");
    const named = await strict.post(`http://localhost:${port}/`, {}, "{}");
    expect(literal).toMatchObject({ status: null });
    expect(named).toMatchObject({ status: null });
    expect(`${literal.error} ${named.error}`).not.toContain("ECONNREFUSED");
    expect(hits).toBe(0);
    const allowed = makeHttpSender({ allowedHosts: makeHostAllowList(["127.0.0.0/8"]) });
    expect((await allowed.post(`http://127.0.0.1:${port}/`, {}, "{}")).status).toBe(200);
    expect(hits).toBe(1);
    await Promise.all([strict.close(), allowed.close()]);
    server.close();
  });
});

describe("sender bounds", () => {
  it("bytes: receivers on many origins keep at most maxOrigins pools, and an evicted origin is reached again", async () => {
    const servers = await Promise.all(
      Array.from({ length: 5 }, async () => {
        const server = createServer((_, res) => res.end("ok"));
        await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
        return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
      }),
    );
    const sender = makeHttpSender({ allowedHosts: makeHostAllowList(["127.0.0.0/8"]), maxOrigins: 2 });
    const statuses: Array<number | null> = [];
    for (const { url } of servers) statuses.push((await sender.post(url, {}, "{}")).status);
    statuses.push((await sender.post(servers[0]!.url, {}, "{}")).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    expect(sender.origins()).toBe(2);
    await sender.close();
    for (const { server } of servers) server.closeAllConnections();
    await Promise.all(servers.map(({ server }) => new Promise((resolve) => server.close(resolve))));
  });

  it("bytes: a huge response body is cut off after MAX_RESPONSE_BYTES and its status kept; a body cut by a reset is a failure", async () => {
    const OFFERED = 1024 * MAX_RESPONSE_BYTES;
    let written = 0;
    let closeHuge: () => void = () => undefined;
    const hugeClosed = new Promise<void>((resolve) => {
      closeHuge = resolve;
    });
    const server = createServer((request, res) => {
      if (request.url === "/reset") {
        res.writeHead(200, { "content-length": "1000" }).write("partial");
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      }
      // 64 MiB on offer, written as fast as the client reads them.
      res.on("close", () => closeHuge());
      res.writeHead(200);
      const more = () => {
        let room = true;
        while (room && written < OFFERED) {
          room = res.write(Buffer.alloc(64 * 1024));
          written += 64 * 1024;
        }
        if (written >= OFFERED) res.end();
      };
      res.on("drain", more);
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const sender = makeHttpSender({ allowedHosts: makeHostAllowList(["127.0.0.0/8"]) });
    const huge = await sender.post(`${origin}/huge`, {}, "{}");
    expect(huge).toMatchObject({ status: 200, error: null });
    // The rest is dropped with the connection, not read in the background: once the server sees it
    // closed, socket buffers took a few MiB more at most, nothing like the whole body.
    await hugeClosed;
    expect(written).toBeLessThan(OFFERED / 4);
    const reset = await sender.post(`${origin}/reset`, {}, "{}");
    expect(reset.status).toBeNull();
    expect(reset.error).toMatch(/socket|closed|terminated|aborted/i);
    await sender.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("args: attempts started within one slice share a deadline signal, and each still gets the whole deadline", () => {
    let now = 0;
    const requested: Array<number> = [];
    const next = deadlineSignals(
      1_000,
      100,
      () => now,
      (ms) => {
        requested.push(ms);
        return new AbortController().signal;
      },
    );
    const first = next();
    now = 99;
    expect(next()).toBe(first);
    now = 100;
    const second = next();
    expect(second).not.toBe(first);
    now = 150;
    expect(next()).toBe(second);
    // Fired one slice after the deadline from the slice's first attempt: the one started at 99 still has 1,001 ms.
    expect(requested).toEqual([1_100, 1_100]);
    // At most ATTEMPTS_PER_SIGNAL attempts listen to one signal, however many start within the slice.
    const many = Array.from({ length: 2 * ATTEMPTS_PER_SIGNAL }, () => next());
    expect(new Set(many).size).toBe(3);
    expect(many.filter((signal) => signal === second)).toHaveLength(ATTEMPTS_PER_SIGNAL - 2);
  });
});

/** Waits for a condition that no actor snapshot reports (polled). */
const until = async (condition: () => boolean) => {
  for (let i = 0; !condition(); i++) {
    if (i > 2_000) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 1));
  }
};

describe("webhook actor delivery", () => {
  const hookRecord = (id: string) => webhookRecord({ id, name: "hook", type: "activities" });

  it("behavior: one run sends the queue in order, and a delivery queued as the run ends is sent too", async () => {
    const clock = new SimulatedClock();
    clock.set(1_000_000);
    const queue = [1, 2, 3].map((n) => delivery({ id: `msg_${n}`, order: `o${n}` }));
    const sent: Array<string> = [];
    let wake: () => void = () => undefined;
    const machine = webhookMachine.provide({
      actors: {
        deliver: deliverQueue({
          loadHead: async () => {
            const head = queue[0];
            // The notifier queues a fourth delivery just after the run found the queue empty.
            if (head === undefined && sent.length === 3 && !sent.includes("msg_4")) {
              queue.push(delivery({ id: "msg_4", order: "o4" }));
              queueMicrotask(() => wake());
            }
            return head;
          },
          attempt: async ({ delivery: d }) => {
            sent.push(d.id);
            queue.shift();
            return { kind: "delivered" as const };
          },
        }),
      },
    });
    const actor = createActor(machine, {
      input: { record: hookRecord(queue[0]!.webhook_id), revision: 1, clock },
      clock,
    });
    wake = () => actor.send({ type: "delivery.enqueued" });
    actor.start();
    await waitFor(actor, (s) => s.matches({ active: { delivery: "idle" } }) && sent.length === 4);
    expect(sent).toEqual(["msg_1", "msg_2", "msg_3", "msg_4"]);
    actor.stop();
  });

  it("behavior: a run whose queue empties waits at the doorbell: a later delivery is sent by the same run; stopped, it stops waiting", async () => {
    const clock = new SimulatedClock();
    clock.set(1_000_000);
    const queue = [delivery({ id: "msg_1", order: "o1" })];
    const sent: Array<string> = [];
    const doorbell = new QueueDoorbell();
    let runs = 0;
    const machine = webhookMachine.provide({
      actors: {
        deliver: deliverQueue(
          {
            loadHead: async () => queue[0],
            attempt: async ({ delivery: d }) => {
              sent.push(d.id);
              queue.shift();
              return { kind: "delivered" as const };
            },
          },
          (id, signal) => {
            runs++;
            return doorbell.wait(id, 60_000, signal);
          },
        ),
      },
    });
    const id = queue[0]!.webhook_id;
    const actor = createActor(machine, { input: { record: hookRecord(id), revision: 1, clock }, clock });
    const transitions: Array<unknown> = [];
    actor.subscribe((s) => transitions.push(s.value));
    actor.start();
    await until(() => doorbell.size === 1 && sent.length === 1);
    // Nothing rings a webhook with no run waiting.
    expect(doorbell.ring("another")).toBe(false);
    queue.push(delivery({ id: "msg_2", order: "o2" }));
    expect(doorbell.ring(id)).toBe(true);
    await until(() => doorbell.size === 1 && sent.length === 2);
    expect(sent).toEqual(["msg_1", "msg_2"]);
    // One run did both: the machine never left `sending`.
    expect(transitions.every((v) => JSON.stringify(v) === '{"active":{"delivery":"sending"}}')).toBe(true);
    expect(runs).toBe(2);
    actor.send({ type: "webhook.deactivate", record: { ...hookRecord(id), active: false }, revision: 2 });
    expect(doorbell.size).toBe(0);
    actor.stop();
  });

  it("behavior: a doorbell wait ends unrung after its time, and a delivery queued as the wait starts is not missed", async () => {
    const doorbell = new QueueDoorbell();
    const started = performance.now();
    expect(await doorbell.wait("w", 30, new AbortController().signal)).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(doorbell.size).toBe(0);
    // The queue read empty, then a delivery landed (its wake-up went to the machine) before the wait began.
    const queue: Array<QueuedDelivery> = [];
    const sent: Array<string> = [];
    const run = deliverQueue(
      {
        loadHead: async () => queue[0],
        attempt: async ({ delivery: d }) => {
          sent.push(d.id);
          queue.shift();
          return { kind: "delivered" as const };
        },
      },
      (id, signal) => {
        if (sent.length === 0) queue.push(delivery({ id: "msg_late", order: "o9" }));
        return doorbell.wait(id, 50, signal);
      },
    );
    const actor = createActor(run, {
      input: { webhookId: "w", record: () => hookRecord("w"), now: () => 0 },
    }).start();
    await waitFor(actor, (s) => s.status === "done");
    expect(sent).toEqual(["msg_late"]);
    expect(actor.getSnapshot().output).toEqual({ kind: "idle" });
  });

  it("behavior: waits share one timer: each ends unrung at its own time, a shorter later wait sets it sooner, a rung wait leaves the others be", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const doorbell = new QueueDoorbell();
      const ended: Array<string> = [];
      const waiting = (id: string, ms: number) =>
        doorbell.wait(id, ms, new AbortController().signal).then((queued) => {
          ended.push(`${id}:${queued}`);
        });
      const long = waiting("long", 300);
      const rung = waiting("rung", 100);
      const short = waiting("short", 50);
      expect(doorbell.ring("rung")).toBe(true);
      await rung;
      await vi.advanceTimersByTimeAsync(49);
      expect(ended).toEqual(["rung:true"]);
      await vi.advanceTimersByTimeAsync(1);
      await short;
      expect(ended).toEqual(["rung:true", "short:false"]);
      // The rung run's time passes without touching the others.
      await vi.advanceTimersByTimeAsync(200);
      expect(doorbell.size).toBe(1);
      const again = waiting("rung", 500);
      await vi.advanceTimersByTimeAsync(50);
      await long;
      expect(ended).toEqual(["rung:true", "short:false", "long:false"]);
      expect(doorbell.size).toBe(1);
      await vi.advanceTimersByTimeAsync(449);
      expect(doorbell.size).toBe(1);
      await vi.advanceTimersByTimeAsync(1);
      await again;
      expect(ended.at(-1)).toBe("rung:false");
      expect(doorbell.size).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("behavior: rebuilt mid-backoff, it waits for the stored retry time and then sends (no restored timers)", async () => {
    const clock = new SimulatedClock();
    clock.set(1_000_000);
    const head = delivery({ attempts: 2, next_attempt_at: 1_060_000 });
    const sent: Array<number> = [];
    let queue: Array<QueuedDelivery> = [head];
    const machine = webhookMachine.provide({
      actors: {
        deliver: deliverQueue({
          loadHead: async () => queue[0],
          attempt: async ({ delivery }) => {
            sent.push(clock.now());
            queue = queue.filter((d) => d.id !== delivery.id);
            return { kind: "delivered" as const };
          },
        }),
      },
    });
    const record = webhookRecord({ id: head.webhook_id, name: "hook", type: "activities" });
    const actor = createActor(machine, { input: { record, revision: 1, clock }, clock }).start();
    await waitFor(actor, (s) => s.matches({ active: { delivery: "waitingToRetry" } }));
    clock.increment(59_999);
    await new Promise((r) => setTimeout(r, 10));
    expect(sent).toEqual([]);
    clock.increment(1);
    await waitFor(actor, (s) => s.matches({ active: { delivery: "idle" } }));
    expect(sent).toEqual([1_060_000]);
    actor.stop();
  });
});
