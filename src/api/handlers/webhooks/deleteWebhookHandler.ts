import { Effect } from "effect";
import { deleteWebhook } from "../../../contracts/Webhooks.js";
import { WebhookSupervisor } from "../../../webhooks/actors/WebhookSupervisor.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { route } from "../../Handler.js";
import { callerTeamId, normaliseId } from "./callerTeam.js";
import { forgetWatched } from "./discoverWatched.js";

/** DELETE /beta/evm/subscriptions/webhooks/{webhookId}: permanent; stops its actor; 200 with an empty body. 0 CU. */
export const deleteWebhookRoute = route(deleteWebhook, ({ params }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const id = normaliseId(params.webhookId);
    const store = yield* WebhookStore;
    // Read first: once removed, nothing says which wallets it had queued for discovery. A read
    // that fails does not stop the delete (its wallets are then discovered as if still watched).
    const watched = yield* store
      .addresses(teamId, id)
      .pipe(
        Effect.catchAll((error) =>
          Effect.as(
            error._tag === "NotFound"
              ? Effect.void
              : Effect.logWarning(
                  `webhook ${id}: its addresses could not be read before its delete (${error.message}); those waiting to be discovered for it stay queued`,
                ),
            [] as ReadonlyArray<string>,
          ),
        ),
      );
    yield* store.remove(teamId, id);
    (yield* WebhookSupervisor).forget(id);
    yield* forgetWatched(id, watched);
    return { cu: 0, body: "" };
  }),
);
