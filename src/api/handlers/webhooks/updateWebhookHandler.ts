import { Clock, Effect } from "effect";
import { Chains } from "../../../chains/Chains.js";
import { updateWebhook } from "../../../contracts/Webhooks.js";
import { WebhookSupervisor } from "../../../webhooks/actors/WebhookSupervisor.js";
import { applyPatch } from "../../../webhooks/applyPatch.js";
import { WebhookPolicy } from "../../../webhooks/WebhookPolicy.js";
import { toResource } from "../../../webhooks/WebhookRecord.js";
import { WebhookStore } from "../../../webhooks/WebhookStore.js";
import { route } from "../../Handler.js";
import { callerTeamId, normaliseId } from "./callerTeam.js";
import { discoverWatched, forgetWatched, watchedAddresses } from "./discoverWatched.js";

/** The chains in `from` and not in `to` (null: every chain this worker serves). */
const chainsLeft = (
  from: ReadonlyArray<number> | null,
  to: ReadonlyArray<number> | null,
  served: ReadonlyArray<number>,
): ReadonlyArray<number> => (from ?? served).filter((chainId) => !(to ?? served).includes(chainId));

/**
 * The webhook's addresses' discovery follows a change of its chains: wallets still queued on a
 * chain it no longer watches leave the queue, and those on a chain it newly watches join it. The
 * chains it watches are read again after its addresses, so a PATCH or DELETE that landed meanwhile
 * is followed from its result rather than undone (a webhook gone by then queues nothing).
 */
const followChains = (
  teamId: string,
  id: string,
  before: ReadonlyArray<number> | null,
  after: ReadonlyArray<number> | null,
) =>
  Effect.gen(function* () {
    const served = (yield* Chains).chains.map((chain) => chain.chain_id);
    const moved =
      chainsLeft(before, after, served).length > 0 || chainsLeft(after, before, served).length > 0;
    if (!moved) return;
    const addresses = yield* watchedAddresses(
      teamId,
      id,
      "after its chains changed",
      "their background discovery stays as it was",
    );
    if (addresses.length === 0) return;
    const now = yield* Effect.either((yield* WebhookStore).get(teamId, id));
    if (now._tag === "Left") return;
    const watched = now.right.value.chain_ids;
    yield* forgetWatched(id, addresses, chainsLeft(before, watched, served));
    const added = chainsLeft(watched, before, served);
    if (added.length > 0) yield* discoverWatched(id, added, addresses);
  });

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
    const id = normaliseId(params.webhookId);
    // The chains of the record the patch was applied to (the last try, under a revision conflict).
    let chainsBefore: ReadonlyArray<number> | null = null;
    const result = yield* (yield* WebhookStore).modify(teamId, id, (record) => {
      chainsBefore = record.chain_ids;
      return applyPatch(record, body, policy, now);
    });
    if (result.changed) {
      (yield* WebhookSupervisor).observe(result);
      yield* followChains(teamId, id, chainsBefore, result.record.chain_ids);
    }
    return { cu: 0, body: toResource(result.record) };
  }),
);
