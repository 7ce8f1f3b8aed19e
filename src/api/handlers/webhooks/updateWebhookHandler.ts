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

/**
 * The webhook's addresses' discovery follows a change of its chains: wallets still queued on a
 * chain it no longer watches leave the queue, and those on a chain it newly watches join it.
 */
const followChains = (
  teamId: string,
  id: string,
  before: ReadonlyArray<number> | null,
  after: ReadonlyArray<number> | null,
) =>
  Effect.gen(function* () {
    const served = (yield* Chains).chains.map((chain) => chain.chain_id);
    const watchedBefore = before ?? served;
    const watchedAfter = after ?? served;
    const dropped = watchedBefore.filter((chainId) => !watchedAfter.includes(chainId));
    const added = watchedAfter.filter((chainId) => !watchedBefore.includes(chainId));
    if (dropped.length === 0 && added.length === 0) return;
    const addresses = yield* watchedAddresses(
      teamId,
      id,
      "after its chains changed",
      "their background discovery stays as it was",
    );
    yield* forgetWatched(id, addresses, dropped);
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
