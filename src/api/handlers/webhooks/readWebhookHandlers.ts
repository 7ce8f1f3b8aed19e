import { Effect, Schema } from "effect";
import { getWebhook, listWebhooks } from "../../../contracts/Webhooks.js";
import { decodeCursor, parseLimit } from "../../../webhooks/paging.js";
import { toResource } from "../../../webhooks/WebhookRecord.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { route } from "../../Handler.js";
import { callerTeamId, normaliseId } from "./callerTeam.js";

const isUuid = Schema.is(Schema.UUID);

/** GET /beta/evm/subscriptions/webhooks/{webhookId}: the resource with the filters that are set. 0 CU. */
export const getWebhookRoute = route(getWebhook, ({ params }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const { value } = yield* (yield* WebhookStore).get(teamId, normaliseId(params.webhookId));
    return { cu: 0, body: toResource(value) };
  }),
);

/** GET /beta/evm/subscriptions/webhooks: the team's webhooks, active and inactive, cursor-paged. 0 CU. */
export const listWebhooksRoute = route(listWebhooks, ({ query }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const limit = parseLimit(query.limit);
    if (typeof limit !== "number") return yield* limit;
    const after = decodeCursor(query.offset, isUuid);
    if (typeof after === "object") return yield* after;
    const page = yield* (yield* WebhookStore).list(teamId, after, limit);
    return {
      cu: 0,
      body: {
        webhooks: page.records.map((record) => toResource(record)),
        ...(page.next === undefined ? {} : { next_offset: page.next }),
      },
    };
  }),
);
