import type { NatsConnection } from "@nats-io/transport-node";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { adminListWebhooks } from "../../../src/contracts/Admin.js";
import { type RunningService, startService } from "../../support/serviceHarness.js";
import {
  addressOf,
  createBody,
  startWebhookEnv,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";

let env: WebhookEnv;
let restarted: RunningService | undefined;
let admin: NatsConnection;

beforeAll(async () => {
  env = await startWebhookEnv();
  admin = await env.nats.connectAs("admin");
}, 60_000);

afterAll(async () => {
  await restarted?.stop();
  await env?.stop();
});

/** One admin.webhooks.list call and how long its answer took, in ms. */
const timedList = async () => {
  const started = performance.now();
  const answer = await Effect.runPromise(callAdmin(admin, adminListWebhooks, { search: "catalog-" }));
  return { answer, ms: performance.now() - started };
};

describe("the operator's webhook list after a restart", () => {
  it("behavior: over a bucket with deleted and updated webhooks, the first and every later call answers at once (median under 100 ms)", async () => {
    const call = await env.as("catalog-team");
    const ids: Array<string> = [];
    for (const n of [1, 2, 3, 4]) {
      const created = await call(
        "POST",
        WEBHOOKS,
        createBody({ name: `hook ${n}`, addresses: [addressOf(n)] }),
      );
      expect(created.status, created.text).toBe(200);
      ids.push(created.json.id as string);
    }
    const [kept, paused, gone, alsoGone] = ids as [string, string, string, string];
    expect((await call("PATCH", `${WEBHOOKS}/${kept}`, { name: "hook 1 renamed" })).status).toBe(200);
    expect(
      (
        await call("PATCH", `${WEBHOOKS}/${kept}/addresses`, {
          add_addresses: [addressOf(10), addressOf(11)],
        })
      ).status,
    ).toBe(200);
    expect((await call("PATCH", `${WEBHOOKS}/${paused}`, { active: false })).status).toBe(200);
    expect((await call("DELETE", `${WEBHOOKS}/${gone}`)).status).toBe(200);
    expect((await call("DELETE", `${WEBHOOKS}/${alsoGone}`)).status).toBe(200);

    await env.service.stop();
    restarted = await startService(env.nats, { chainsConfig: env.chainsConfig, roles: ["gateway", "api"] });

    const calls = [];
    for (let i = 0; i < 5; i++) calls.push(await timedList());
    for (const { answer } of calls)
      expect(answer.webhooks.map((w) => [w.id, w.name, w.active, w.address_count])).toEqual([
        [kept, "hook 1 renamed", true, 3],
        [paused, "hook 2", false, 1],
      ]);
    // Before the fix every call waited 5 s for an initial read that was never noticed. No call may
    // come near that wait; the 100 ms promise is held by the median, so that one call starved of CPU
    // on a busy machine (118 ms at load 12) does not decide.
    const ms = calls.map((c) => Math.round(c.ms));
    expect(ms.filter((one) => one >= 2_500)).toEqual([]);
    expect([...ms].sort((a, b) => a - b)[2]).toBeLessThan(100);
  });
});
