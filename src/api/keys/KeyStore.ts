import type { KV } from "@nats-io/kv";
import { Data, Effect, Schedule, Schema } from "effect";
import { ApiKeyRecord, type RateLimit, TEAM_NAME_PATTERN, Team } from "../../domain/ApiKey.js";
import { ulid } from "../../lib/ulid.js";
import { isRevisionConflict } from "../../nats/revisionConflict.js";
import { displayPrefix, generateApiKey, generateKeyId, hashApiKey } from "./apiKeyFormat.js";

/**
 * Teams and API keys in JetStream KV, shared by every node.
 *
 * Bucket `teams`: `team.<team_id>` -> Team, `name.<name>` -> team_id.
 * Bucket `keys`:  `hash.<sha256>` -> ApiKeyRecord, `id.<key_id>` -> sha256.
 * Writes that must be unique use `create` (fails if the key exists), so two
 * operators creating the same team at once end with one team.
 */
export interface KeyBuckets {
  readonly keys: KV;
  readonly teams: KV;
}

export class KeyStoreError extends Data.TaggedError("KeyStoreError")<{ readonly cause: unknown }> {
  override get message(): string {
    return `API key store failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`;
  }
}

export class InvalidTeamName extends Data.TaggedError("InvalidTeamName")<{ readonly name: string }> {
  override get message(): string {
    return `Team name "${this.name}" is invalid: use 1 to 64 lower-case letters, digits, '-' or '_', starting with a letter or digit.`;
  }
}

export class KeyNotFound extends Data.TaggedError("KeyNotFound")<{ readonly keyId: string }> {
  override get message(): string {
    return `No API key has the id "${this.keyId}".`;
  }
}

export class TeamNotFound extends Data.TaggedError("TeamNotFound")<{ readonly team: string }> {
  override get message(): string {
    return `No team is named or has the id "${this.team}".`;
  }
}

const use = <A>(f: () => Promise<A>) =>
  Effect.tryPromise({ try: f, catch: (cause) => new KeyStoreError({ cause }) });

const encode = (value: unknown) => JSON.stringify(value);
const decodeTeam = Schema.decodeUnknownSync(Schema.parseJson(Team));
const decodeKey = Schema.decodeUnknownSync(Schema.parseJson(ApiKeyRecord));

const readJson = <A>(kv: KV, key: string, decode: (s: string) => A) =>
  use(async () => {
    const entry = await kv.get(key);
    return entry === null || entry.operation !== "PUT" ? undefined : decode(entry.string());
  });

const listValues = <A>(kv: KV, filter: string, decode: (s: string) => A) =>
  use(async () => {
    const keys: Array<string> = [];
    for await (const key of await kv.keys(filter)) keys.push(key);
    const values = await Promise.all(keys.map((key) => kv.get(key)));
    return values.flatMap((entry) =>
      entry !== null && entry.operation === "PUT" ? [decode(entry.string())] : [],
    );
  });

export const normaliseTeamName = (name: string): string => name.trim().toLowerCase();

/** Writes the record of a team whose name is taken but whose writer never wrote the record. */
const completeTeam = (buckets: KeyBuckets, teamId: string, name: string) =>
  Effect.gen(function* () {
    const team = new Team({
      team_id: teamId,
      name,
      created_at: new Date().toISOString(),
      monthly_cu_quota: null,
    });
    yield* use(() => buckets.teams.put(`team.${teamId}`, encode(team)));
    return team;
  });

/** The team with this name, created (with no quota) when it does not exist yet. */
export const ensureTeam = (buckets: KeyBuckets, rawName: string) =>
  Effect.gen(function* () {
    const name = normaliseTeamName(rawName);
    if (!TEAM_NAME_PATTERN.test(name)) return yield* new InvalidTeamName({ name: rawName });
    const existing = yield* findTeam(buckets, name);
    if (existing !== undefined) return existing;
    const team = new Team({
      team_id: ulid(),
      name,
      created_at: new Date().toISOString(),
      monthly_cu_quota: null,
    });
    const won = yield* use(async () => {
      try {
        await buckets.teams.create(`name.${name}`, team.team_id);
        return true;
      } catch (error) {
        if (isRevisionConflict(error)) return false;
        throw error;
      }
    });
    if (!won) {
      // Another writer created the name first: use their team, never a second one of our own (a key
      // of that team would count against a team nobody can name). Their team's record is written
      // just after its name, and a replica answering the read may not hold either yet: a miss is
      // read again for about 2.5 s. A name still without its record by then lost its writer between
      // the two writes, and the record is written for it, under the name's id.
      return yield* findTeam(buckets, name).pipe(
        Effect.filterOrFail(
          (theirs): theirs is Team => theirs !== undefined,
          () => new KeyStoreError({ cause: new Error(`team "${name}" cannot be read yet; try again`) }),
        ),
        Effect.retry({ schedule: Schedule.exponential("20 millis"), times: 7 }),
        Effect.catchAll((error) =>
          Effect.flatMap(
            readJson(buckets.teams, `name.${name}`, (s) => s),
            (teamId) => (teamId === undefined ? Effect.fail(error) : completeTeam(buckets, teamId, name)),
          ),
        ),
      );
    }
    yield* use(() => buckets.teams.put(`team.${team.team_id}`, encode(team)));
    return team;
  });

/** A team by id or by name. */
export const findTeam = (buckets: KeyBuckets, idOrName: string) =>
  Effect.gen(function* () {
    const byId = /^[0-9A-Z]{26}$/.test(idOrName)
      ? yield* readJson(buckets.teams, `team.${idOrName}`, decodeTeam)
      : undefined;
    if (byId !== undefined) return byId;
    const name = normaliseTeamName(idOrName);
    if (!TEAM_NAME_PATTERN.test(name)) return undefined;
    const teamId = yield* readJson(buckets.teams, `name.${name}`, (s) => s);
    return teamId === undefined ? undefined : yield* readJson(buckets.teams, `team.${teamId}`, decodeTeam);
  });

export const listTeams = (buckets: KeyBuckets) => listValues(buckets.teams, "team.>", decodeTeam);

/** Sets (or with `null` removes) a team's monthly CU quota. */
export const setTeamQuota = (buckets: KeyBuckets, idOrName: string, quota: number | null) =>
  Effect.gen(function* () {
    const team = yield* findTeam(buckets, idOrName);
    if (team === undefined) return yield* new TeamNotFound({ team: idOrName });
    const updated = new Team({ ...team, monthly_cu_quota: quota });
    yield* use(() => buckets.teams.put(`team.${team.team_id}`, encode(updated)));
    return updated;
  });

/** Creates a key for the team (creating the team if needed). The key is returned once and never stored. */
export const createKey = (buckets: KeyBuckets, teamName: string, rateLimit: RateLimit | null = null) =>
  Effect.gen(function* () {
    const team = yield* ensureTeam(buckets, teamName);
    const key = generateApiKey();
    const hash = hashApiKey(key);
    const record = new ApiKeyRecord({
      key_id: generateKeyId(),
      team_id: team.team_id,
      prefix: displayPrefix(key),
      created_at: new Date().toISOString(),
      revoked_at: null,
      rate_limit: rateLimit,
    });
    yield* use(() => buckets.keys.create(`hash.${hash}`, encode(record)));
    yield* use(() => buckets.keys.create(`id.${record.key_id}`, hash));
    return { key, record, team } as const;
  });

export const listKeys = (buckets: KeyBuckets) => listValues(buckets.keys, "hash.>", decodeKey);

/** The record of a key, looked up by the key's hash. */
export const findKeyByHash = (buckets: KeyBuckets, hash: string) =>
  readJson(buckets.keys, `hash.${hash}`, decodeKey);

/** Marks a key revoked; it stops authenticating on every node within moments. Idempotent. */
export const revokeKey = (buckets: KeyBuckets, keyId: string) =>
  Effect.gen(function* () {
    const hash = /^key_[0-9a-f]{16}$/.test(keyId)
      ? yield* readJson(buckets.keys, `id.${keyId}`, (s) => s)
      : undefined;
    if (hash === undefined) return yield* new KeyNotFound({ keyId });
    const record = yield* findKeyByHash(buckets, hash);
    if (record === undefined) return yield* new KeyNotFound({ keyId });
    if (record.revoked_at !== null) return record;
    const revoked = new ApiKeyRecord({ ...record, revoked_at: new Date().toISOString() });
    yield* use(() => buckets.keys.put(`hash.${hash}`, encode(revoked)));
    return revoked;
  });
