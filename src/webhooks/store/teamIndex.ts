import type { KV, KvEntry } from "@nats-io/kv";
import { Effect, Either, Option, Schema } from "effect";
import { InvalidRequest } from "../../contracts/ApiError.js";
import { teamKey } from "./kvKeys.js";
import { casModify, getLive } from "./kvOps.js";

const TeamIds = Schema.parseJson(Schema.Struct({ ids: Schema.Array(Schema.String) }));
const decodeIds = Schema.decodeUnknownOption(TeamIds);

const idsOf = (entry: KvEntry | null): ReadonlyArray<string> =>
  entry === null ? [] : Option.match(decodeIds(entry.string()), { onNone: () => [], onSome: (v) => v.ids });

const encodeIds = (ids: ReadonlyArray<string>) => JSON.stringify({ ids: [...ids].sort() });

/**
 * Reserves a slot for a new webhook in its team's list, failing with a 400 when
 * the team already has `max` webhooks. The revision check makes the cap exact
 * even when creates race.
 */
export const reserveSlot = (kv: KV, teamId: string, webhookId: string, max: number) =>
  casModify(kv, teamKey(teamId), (entry) => {
    const ids = idsOf(entry);
    if (ids.length >= max) {
      return Either.left(
        new InvalidRequest({
          code: "WEBHOOK_LIMIT_REACHED",
          message: `The team already has ${ids.length} webhooks, the most allowed (WEBHOOK_MAX_PER_TEAM is ${max}); delete one first.`,
        }),
      );
    }
    return Either.right({ kind: "write" as const, value: encodeIds([...ids, webhookId]), result: undefined });
  });

/** Removes a webhook from its team's list (idempotent). */
export const releaseSlot = (kv: KV, teamId: string, webhookId: string) =>
  casModify(kv, teamKey(teamId), (entry) => {
    const ids = idsOf(entry);
    return Either.right(
      ids.includes(webhookId)
        ? {
            kind: "write" as const,
            value: encodeIds(ids.filter((id) => id !== webhookId)),
            result: undefined,
          }
        : { kind: "keep" as const, result: undefined },
    );
  });

/** The team's webhook ids, sorted (by creation time, as ids are UUIDv7). */
export const teamWebhookIds = (kv: KV, teamId: string) => Effect.map(getLive(kv, teamKey(teamId)), idsOf);
