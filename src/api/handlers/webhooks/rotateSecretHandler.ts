import { Clock, Effect, Either } from "effect";
import { rotateWebhookSecret } from "../../../contracts/Webhooks.js";
import { WebhookSupervisor } from "../../../webhooks/actors/WebhookSupervisor.js";
import { nextUpdatedAt } from "../../../webhooks/applyPatch.js";
import { generateSecret, rotateSecrets } from "../../../webhooks/secrets/signingSecret.js";
import { toResource, WebhookRecord } from "../../../webhooks/WebhookRecord.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { route } from "../../Handler.js";
import { callerTeamId, normaliseId } from "./callerTeam.js";

/**
 * POST /beta/evm/subscriptions/webhooks/{webhookId}/secret/rotate: a new
 * secret becomes current and the previous one keeps signing for 24 hours.
 * Answers the resource with the new `secret` (shown this once). 0 CU.
 */
export const rotateSecretRoute = route(rotateWebhookSecret, ({ params }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const now = yield* Clock.currentTimeMillis;
    // Drawn once, outside the retry loop, so a retried write stores the secret this response shows.
    const secret = generateSecret();
    const result = yield* (yield* WebhookStore).modify(teamId, normaliseId(params.webhookId), (record) =>
      Either.right(
        new WebhookRecord({
          ...record,
          secrets: rotateSecrets(record.secrets, secret, now),
          updated_at: nextUpdatedAt(record.updated_at, now),
        }),
      ),
    );
    (yield* WebhookSupervisor).observe(result);
    return { cu: 0, body: toResource(result.record, secret) };
  }),
);
