import { Effect, Either, Option } from "effect";
import { NotFound } from "../../contracts/ApiError.js";
import { decodeRecord, encodeRecord, sealRecord, type WebhookRecord } from "../WebhookRecord.js";
import { hookKey } from "./kvKeys.js";
import { type CasDecision, casModify, getLive } from "./kvOps.js";
import type { StoreBuckets, Versioned } from "./StoreBuckets.js";

/** The one answer for unknown, deleted and other teams' webhooks, so a 404 never hints that an id exists. */
export const notFound = (id: string) =>
  new NotFound({ code: "WEBHOOK_NOT_FOUND", message: `No webhook with id ${id} exists for this team.` });

const decodeOption = (text: string) => Option.liftThrowable(decodeRecord)(text);

/** A webhook of the team, or `undefined` when absent, deleted, unreadable or another team's. */
export const readOwned = (buckets: StoreBuckets, teamId: string, id: string) =>
  Effect.map(getLive(buckets.webhooks, hookKey(id)), (entry): Versioned<WebhookRecord> | undefined => {
    if (entry === null) return undefined;
    const record = decodeOption(entry.string());
    return Option.isSome(record) && record.value.team_id === teamId
      ? { value: record.value, revision: entry.revision }
      : undefined;
  });

/** Like readOwned, failing with the 404 when there is no such webhook for the team. */
export const getOwned = (buckets: StoreBuckets, teamId: string, id: string) =>
  Effect.flatMap(readOwned(buckets, teamId, id), (found) =>
    found === undefined ? Effect.fail(notFound(id)) : Effect.succeed(found),
  );

/**
 * Changes a team's webhook with a revision check, retrying on a lost race.
 * `change` returns the new record, or `undefined` when nothing would change
 * (then nothing is written and the current record is returned). The record
 * is answered as stored: every write seals its secrets, so a record from
 * before sealing is sealed by its next change.
 */
export const modifyOwned = <E>(
  buckets: StoreBuckets,
  teamId: string,
  id: string,
  change: (record: WebhookRecord) => Either.Either<WebhookRecord | undefined, E>,
) =>
  Effect.map(
    casModify<{ record: WebhookRecord; changed: boolean }, NotFound | E>(
      buckets.webhooks,
      hookKey(id),
      (entry) => {
        const record = entry === null ? Option.none() : decodeOption(entry.string());
        if (Option.isNone(record) || record.value.team_id !== teamId) return Either.left(notFound(id));
        return Either.map(
          change(record.value),
          (next): CasDecision<{ record: WebhookRecord; changed: boolean }> => {
            if (next === undefined) return { kind: "keep", result: { record: record.value, changed: false } };
            const stored = sealRecord(next, buckets.sealer);
            return {
              kind: "write",
              value: encodeRecord(stored, buckets.sealer),
              result: { record: stored, changed: true },
            };
          },
        );
      },
    ),
    ({ result, revision }) => ({ ...result, revision: revision ?? 0 }),
  );
