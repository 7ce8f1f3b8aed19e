import { Context, Effect, Layer, Schema } from "effect";
import { Unauthenticated } from "../../contracts/ApiError.js";
import { ApiKeyRecord, Team } from "../../domain/ApiKey.js";
import { leaderReads } from "../../nats/leaderReads.js";
import { mirrorBucket } from "../../nats/mirrorBucket.js";
import { WATCH_CHECK_MS } from "../../nats/WatchProgress.js";
import { hashApiKey, isWellFormedApiKey } from "./apiKeyFormat.js";
import { findKeyByHash, findTeam, type KeyBuckets } from "./KeyStore.js";

/** Who is calling: the key's record and its team. */
export interface Caller {
  readonly key: ApiKeyRecord;
  readonly team: Team;
}

/**
 * Every key and team, mirrored in memory from KV watches so that authenticating
 * a request costs a hash and a map lookup, not a round trip. Revocations and new
 * keys arrive through the watch within moments on every node (within a watch check,
 * KEYS_WATCH_CHECK_MS, on a node whose watch stalled).
 */
export class KeyDirectory extends Context.Tag("app/api/keys/KeyDirectory")<
  KeyDirectory,
  {
    readonly authenticate: (header: string | undefined) => Effect.Effect<Caller, Unauthenticated>;
    /**
     * The same answer from memory alone, or `undefined` when the key (or its team)
     * is not mirrored yet and `authenticate` must ask the store.
     */
    readonly authenticateCached: (header: string | undefined) => Caller | Unauthenticated | undefined;
    readonly team: (teamId: string) => Team | undefined;
    readonly teams: () => ReadonlyArray<Team>;
  }
>() {}

/**
 * How often the key and team mirrors check their watch against the bucket's stream (followBucket's
 * stall check). A watch stalled by a lost nats-server, without ending, would otherwise keep a
 * revoked key valid in this process. Both buckets only gain and change keys, never lose them, so
 * opening the watch again and replaying the current values leaves the mirror exact.
 */
export const KEYS_WATCH_CHECK_MS = WATCH_CHECK_MS;

export const layer = (
  buckets: KeyBuckets,
  watchCheckMs: number = KEYS_WATCH_CHECK_MS,
): Layer.Layer<KeyDirectory> =>
  Layer.scoped(
    KeyDirectory,
    Effect.gen(function* () {
      const keys = yield* mirrorBucket(buckets.keys, {
        key: "hash.>",
        decode: Schema.parseJson(ApiKeyRecord),
        stallCheckMs: watchCheckMs,
      });
      const teams = yield* mirrorBucket(buckets.teams, {
        key: "team.>",
        decode: Schema.parseJson(Team),
        stallCheckMs: watchCheckMs,
      });

      // A key or team created a moment ago may not have reached the watch yet, nor every replica:
      // a miss asks the buckets' leaders, which hold every acknowledged write.
      const latest: KeyBuckets = { keys: leaderReads(buckets.keys), teams: leaderReads(buckets.teams) };
      const lookup = (hash: string) =>
        Effect.suspend(() => {
          const cached = keys.get(hash);
          if (cached !== undefined) return Effect.succeed(cached);
          return findKeyByHash(latest, hash).pipe(Effect.orElseSucceed(() => undefined));
        });

      const authenticate = (header: string | undefined) =>
        Effect.gen(function* () {
          if (header === undefined || header.length === 0) {
            return yield* new Unauthenticated({ reason: "MissingKey" });
          }
          if (!isWellFormedApiKey(header)) return yield* new Unauthenticated({ reason: "MalformedKey" });
          const record = yield* lookup(hashApiKey(header));
          if (record === undefined) return yield* new Unauthenticated({ reason: "UnknownKey" });
          if (record.revoked_at !== null) return yield* new Unauthenticated({ reason: "RevokedKey" });
          const team =
            teams.get(record.team_id) ??
            (yield* findTeam(latest, record.team_id).pipe(Effect.orElseSucceed(() => undefined)));
          if (team === undefined) return yield* new Unauthenticated({ reason: "UnknownKey" });
          return { key: record, team } satisfies Caller;
        });

      const authenticateCached = (header: string | undefined): Caller | Unauthenticated | undefined => {
        if (header === undefined || header.length === 0) return new Unauthenticated({ reason: "MissingKey" });
        if (!isWellFormedApiKey(header)) return new Unauthenticated({ reason: "MalformedKey" });
        const record = keys.get(hashApiKey(header));
        if (record === undefined) return undefined;
        if (record.revoked_at !== null) return new Unauthenticated({ reason: "RevokedKey" });
        const team = teams.get(record.team_id);
        return team === undefined ? undefined : { key: record, team };
      };

      return {
        authenticate,
        authenticateCached,
        team: (teamId: string) => teams.get(teamId),
        teams: () => teams.values(),
      } as const;
    }),
  );
