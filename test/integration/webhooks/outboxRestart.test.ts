import { rm } from "node:fs/promises";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppSettings } from "../../../src/AppConfig.js";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { adminWebhookDeliveries } from "../../../src/contracts/Admin.js";
import { activityContext } from "../../../src/devnet/activity/ActivityContext.js";
import { runActivityAction } from "../../../src/devnet/activity/runActivity.js";
import { devnetPaths } from "../../../src/devnet/devnetPaths.js";
import { readManifest } from "../../../src/devnet/manifestFile.js";
import { adminBuckets } from "../../support/anvilService.js";
import { seededDataDir } from "../../support/devnetFixture.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, type RunningService, startService } from "../../support/serviceHarness.js";
import { callerFor, WEBHOOKS } from "../../support/webhookEnv.js";
import { ok, type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * Five quick retries: a receiver that always fails is dead-lettered within a second, while one
 * asking `Retry-After: 3` stays queued, waiting to retry, for many seconds.
 */
const SETTINGS: Partial<AppSettings> = {
  webhookAllowHttp: true,
  webhookAllowedHosts: ["127.0.0.0/8"],
  webhookRetrySchedule: [100, 100, 100, 100, 100],
  webhookTimeoutMs: 2_000,
};

let nats: TestNats;
let dataDir: string;
let service: RunningService | undefined;
let admin: NatsConnection;
const receivers: Array<Receiver> = [];

/** The service with no CHAINS_CONFIG: it starts the embedded devnet, whose every start resets chain-derived state. */
const start = async () => {
  service = await startService(nats, { dataDir, settings: SETTINGS });
  const up = service;
  await eventually(async () => (await fetch(`${up.baseUrl}/healthz`)).status === 200, 60_000, "healthz 200");
  return up;
};

beforeAll(async () => {
  nats = await startTestNats();
  dataDir = await seededDataDir();
  admin = await nats.connectAs("admin");
});

afterAll(async () => {
  await service?.stop();
  await Promise.all(receivers.map((r) => r.stop()));
  await nats?.stop();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
});

const statsOf = async (id: string) => {
  const answer = await Effect.runPromise(callAdmin(admin, adminWebhookDeliveries, { webhook_ids: [id] }));
  return answer.webhooks[0]!;
};

// Two starts of the service on the embedded devnet, with deliveries and retries in between.
describe("the webhook outbox across a devnet restart", { timeout: 300_000 }, () => {
  it("behavior: a delivery waiting to retry and a dead letter survive the restart, and the waiting one is delivered", async () => {
    const first = await start();
    const { key } = await Effect.runPromise(createKey(await adminBuckets(admin), "outbox-team"));
    const call = callerFor(first.baseUrl, key);
    const failing = await startReceiver((_, res) => res.writeHead(500).end());
    const waiting = await startReceiver((_, res) => res.writeHead(503, { "retry-after": "3" }).end());
    receivers.push(failing, waiting);
    const manifest = await readManifest(devnetPaths(dataDir).manifest);
    const ctx = activityContext(manifest.chains.find((c) => c.chain_id === 1)!);
    const wallets = ctx.wallets.map((w) => w.toLowerCase());
    const create = async (url: string) => {
      const answer = await call("POST", WEBHOOKS, {
        name: "outbox",
        url,
        type: "transactions",
        addresses: wallets,
      });
      expect(answer.status, answer.text).toBe(200);
      return answer.json.id as string;
    };
    const dead = await create(failing.url);
    const pending = await create(waiting.url);

    await runActivityAction(ctx, "native_transfer");
    await eventually(
      async () => (await statsOf(dead)).dead_lettered === 1 && (await statsOf(pending)).retrying === 1,
      30_000,
      "one dead letter and one delivery waiting to retry",
    );
    const deadLetters = (await statsOf(dead)).dead_letters.map((d) => d.delivery_id);
    const waitingId = waiting.received[0]!.headers["webhook-id"];

    await first.stop();
    waiting.behave(ok);
    const attemptsBefore = waiting.received.length;
    await start();

    // Dead letters stay until an operator redelivers them.
    const after = await statsOf(dead);
    expect(after.dead_letters.map((d) => d.delivery_id)).toEqual(deadLetters);
    expect(after.dead_lettered).toBe(1);
    // The waiting delivery is sent again, with its webhook-id and its attempts counted on.
    await eventually(
      async () => (await statsOf(pending)).delivered === 1 && (await statsOf(pending)).queued === 0,
      30_000,
      "the waiting delivery delivered after the restart",
    );
    const resent = waiting.received.slice(attemptsBefore);
    expect(resent.map((r) => r.headers["webhook-id"])).toEqual([waitingId]);
    expect(Number(resent[0]!.headers["svc-webhook-retry-index"])).toBeGreaterThanOrEqual(1);
  }, 180_000);
});
