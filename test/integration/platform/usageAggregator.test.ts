import { AckPolicy, jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Fiber, Logger } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { runUsageAggregator } from "../../../src/usage/UsageAggregator.js";
import type { MonthAggregate } from "../../../src/usage/usageAggregates.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually } from "../../support/serviceHarness.js";

let nats: TestNats;
let api: NatsConnection;
let usage: KV;

beforeAll(async () => {
  nats = await startTestNats();
  api = await nats.connectAs("api");
  usage = await Effect.runPromise(openBucket(api, "usage"));
});

afterAll(async () => {
  await api?.close();
  await nats?.stop();
});

/** The bucket, except that its first `failures` reads fail as a timeout would while a leader is elected. */
const failingFirstReads = (kv: KV, failures: number): KV => {
  let left = failures;
  return new Proxy(kv, {
    get(target, property, receiver) {
      if (property === "get")
        return (key: string) => {
          if (left > 0) {
            left--;
            return Promise.reject(new Error("TIMEOUT"));
          }
          return target.get(key);
        };
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
};

const record = (team: string, cu: number) =>
  JSON.stringify({
    hour: "2026112308",
    team_id: team,
    key_id: "k1",
    endpoint: "getBalances",
    requests: 1,
    errors: 0,
    cu,
  });

const monthCu = async (team: string) => {
  const entry = await usage.get("month.202611");
  return entry === null ? 0 : ((entry.json() as MonthAggregate).teams[team] ?? 0);
};

/** A logger that keeps each line's level and first message part, in place of the service's. */
const keptLines = () => {
  const lines: Array<string> = [];
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push(`${logLevel.label} ${String(Array.isArray(message) ? message[0] : message)}`);
  });
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) };
};

describe("usage aggregator", () => {
  it("error: a record whose aggregates cannot be written at first is applied again within seconds, once, and the records after it follow", async () => {
    const js = jetstream(api);
    // The service's logger (LOG_LEVEL, annotations) is the one its warnings go through.
    const log = keptLines();
    const fiber = Effect.runFork(
      runUsageAggregator(api, failingFirstReads(usage, 2)).pipe(Effect.provide(log.layer)),
    );
    try {
      // Not JSON at all: dropped, and it does not hold the records behind it.
      await js.publish("usage.team-a", "{not json");
      for (const cu of [5, 7, 11]) await js.publish("usage.team-a", record("team-a", cu));
      // Left pending (the dropped message, or the first record after its failure), a message would
      // hold the ones behind it for the 10 s ack wait.
      await eventually(async () => (await monthCu("team-a")) === 23, 5_000, "23 CU for team-a");
      const hour = (await usage.get("hour.2026112308"))?.json() as {
        rows: Record<string, { requests: number }>;
      };
      expect(hour.rows["team-a|k1|getBalances"]?.requests).toBe(3);
      expect(log.lines).toContain("ERROR usage message is not a usage record; dropped");
      expect(log.lines).toContain("WARN usage record not applied; retrying");
    } finally {
      await Effect.runPromise(Fiber.interrupt(fiber));
    }
  });

  it("behavior: a durable left by an earlier version (30 s ack wait) is brought to 10 s, and records still apply", async () => {
    // A server of its own: the durable must not exist yet, and no user may delete it.
    const older = await startTestNats();
    const nc = await older.connectAs("api");
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.consumers.add("USAGE", {
        durable_name: "usage-aggregator",
        ack_policy: AckPolicy.Explicit,
        max_ack_pending: 1,
        ack_wait: 30_000_000_000,
      });
      const bucket = await Effect.runPromise(openBucket(nc, "usage"));
      const fiber = Effect.runFork(runUsageAggregator(nc, bucket));
      try {
        await jetstream(nc).publish("usage.team-b", record("team-b", 4));
        await eventually(
          async () =>
            ((await bucket.get("month.202611"))?.json() as MonthAggregate | undefined)?.teams["team-b"] === 4,
          5_000,
          "4 CU for team-b",
        );
        expect((await jsm.consumers.info("USAGE", "usage-aggregator")).config.ack_wait).toBe(10_000_000_000);
      } finally {
        await Effect.runPromise(Fiber.interrupt(fiber));
      }
    } finally {
      await nc.close();
      await older.stop();
    }
  });
});
