import { Effect } from "effect";
import { deleteWebhook } from "../../../contracts/Webhooks.js";
import { WebhookSupervisor } from "../../../webhooks/actors/WebhookSupervisor.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { route } from "../../Handler.js";
import { callerTeamId, normaliseId } from "./callerTeam.js";
import { forgetWatched, watchedAddresses } from "./discoverWatched.js";

/** DELETE /beta/evm/subscriptions/webhooks/{webhookId}: permanent; stops its actor; 200 with an empty body. 0 CU. */
export const deleteWebhookRoute = route(deleteWebhook, ({ params }) =>
  Effect.gen(function* () {
    const teamId = yield* callerTeamId;
    const id = normaliseId(params.webhookId);
    const store = yield* WebhookStore;
    // Read first: once removed, nothing says which wallets it had queued for discovery. A read
    // that fails does not stop the delete (its wallets are then discovered as if still watched).
    const watched = yield* watchedAddresses(
      teamId,
      id,
      "before its delete",
      "those waiting to be discovered for it stay queued",
    );
    // A delete that fails partway may already have emptied the list a retry would read: what was
    // read first is withdrawn now (if the webhook stays, its wallets are left to their first requests).
    const held = yield* store.remove(teamId, id).pipe(Effect.tapError(() => forgetWatched(id, watched)));
    (yield* WebhookSupervisor).forget(id);
    // Also what its list held when removed: one resumed after its record went could read nothing
    // first, and an address added since the read is in the list only.
    yield* forgetWatched(id, [...new Set([...watched, ...held])]);
    return { cu: 0, body: "" };
  }),
);
