import type { KV } from "@nats-io/kv";
import { Context, Effect, Exit, Layer, Scope } from "effect";
import { describe, expect, it } from "vitest";
import * as WebhookSupervisor from "../../../src/webhooks/actors/WebhookSupervisor.js";
import { newWebhookId } from "../../../src/webhooks/webhookId.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

/** An empty bucket whose watch never reports anything (the test drives the supervisor directly). */
const quietBucket = () =>
  ({
    watch: async () => ({
      stop: () => undefined,
      [Symbol.asyncIterator]: () => ({ next: () => new Promise<never>(() => undefined) }),
    }),
    keys: async () => (async function* () {})(),
    get: async () => null,
  }) as unknown as KV;

const record = (id: string) => webhookRecord({ id, team_id: "01TEAMBOUNDS00000000000000", name: "churn" });

describe("WebhookSupervisor bounds", () => {
  it("bytes: webhooks created and deleted without end leave a bounded memory of deleted ids", async () => {
    const scope = Effect.runSync(Scope.make());
    const context = await Effect.runPromise(
      Layer.buildWithScope(WebhookSupervisor.layer(quietBucket()), scope),
    );
    const supervisor = Context.get(context, WebhookSupervisor.WebhookSupervisor);
    for (let i = 0; i < 30_000; i++) supervisor.forget(newWebhookId());
    const last = newWebhookId();
    supervisor.observe({ record: record(last), revision: 1 });
    expect(supervisor.stateOf(last)).toBe("active");
    supervisor.forget(last);
    expect(supervisor.size()).toBe(0);
    expect(supervisor.deletedRemembered()).toBe(WebhookSupervisor.DELETED_REMEMBERED);
    // A late read of a recent deletion still does not bring the webhook back.
    supervisor.observe({ record: record(last), revision: 2 });
    expect(supervisor.stateOf(last)).toBeUndefined();
    await Effect.runPromise(Scope.close(scope, Exit.void));
  });
});
