import { Clock, Effect } from "effect";
import { updateWebhook } from "../../../contracts/Webhooks.js";
import { WebhookSupervisor } from "../../../webhooks/actors/WebhookSupervisor.js";
import { applyPatch } from "../../../webhooks/applyPatch.js";
import { WebhookPolicy } from "../../../webhooks/WebhookPolicy.js";
import { toResource } from "../../../webhooks/WebhookRecord.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { route } from "../../Handler.js";
import { callerTeamId, normaliseId } from "./callerTeam.js";

/**
 * PATCH /beta/evm/subscriptions/webhooks/{webhookId}: changes only the given
 * fields under a revision check (concurrent PATCHes all land), moves
 * `updated_at` only when something changed, and tells the webhook's actor
 * (`active` flips become `webhook.activate` / `webhook.deactivate`). 0 CU.
 */
export const updateWebhookRoute = route(updateWebhook, ({ params, body }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const policy = yield* WebhookPolicy;
    const now = yield* Clock.currentTimeMillis;
    const result = yield* (yield* WebhookStore).modify(teamId, normaliseId(params.webhookId), (record) =>
      applyPatch(record, body, policy, now),
    );
    if (result.changed) (yield* WebhookSupervisor).observe(result);
    return { cu: 0, body: toResource(result.record) };
  }),
);
