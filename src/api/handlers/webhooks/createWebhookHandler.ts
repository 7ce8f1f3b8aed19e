import { Clock, Effect } from "effect";
import { createWebhook } from "../../../contracts/Webhooks.js";
import { WebhookSupervisor } from "../../../webhooks/actors/WebhookSupervisor.js";
import { freshSecrets } from "../../../webhooks/secrets/signingSecret.js";
import { validateCreate } from "../../../webhooks/validateCreate.js";
import { WebhookPolicy } from "../../../webhooks/WebhookPolicy.js";
import { toResource, WebhookRecord } from "../../../webhooks/WebhookRecord.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { newWebhookId } from "../../../webhooks/webhookId.js";
import { route } from "../../Handler.js";
import { callerTeamId } from "./callerTeam.js";
import { discoverWatched } from "./discoverWatched.js";

/**
 * POST /beta/evm/subscriptions/webhooks: validates, stores the webhook active
 * with a fresh signing secret, starts its actor, and answers 200 with the
 * resource plus `secret` (the only time the secret is shown), and queues the discovery of its
 * addresses. 0 CU.
 */
export const createWebhookRoute = route(createWebhook, ({ body }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const policy = yield* WebhookPolicy;
    const valid = yield* validateCreate(body, policy);
    const now = new Date(yield* Clock.currentTimeMillis).toISOString();
    const secrets = freshSecrets();
    const record = new WebhookRecord({
      id: newWebhookId(),
      team_id: teamId,
      type: body.type,
      ...valid.settings,
      created_at: now,
      updated_at: now,
      secrets,
    });
    const stored = yield* (yield* WebhookStore).create(record, valid.addresses, policy.maxPerTeam);
    (yield* WebhookSupervisor).observe({ record: stored.value, revision: stored.revision });
    yield* discoverWatched(stored.value.id, stored.value.chain_ids, valid.addresses);
    return { cu: 0, body: toResource(stored.value, secrets.current) };
  }),
);
