import type { KV, KvEntry } from "@nats-io/kv";
import { Effect, Fiber, TestClock, TestContext } from "effect";
import { describe, expect, it } from "vitest";
import { ensureTeam, type KeyBuckets } from "../../../src/api/keys/KeyStore.js";
import { Team } from "../../../src/domain/ApiKey.js";

/**
 * A teams bucket as a replica that lags sees it: every write lands in `stored`, but the first
 * `lagReads` gets answer as if nothing were there yet.
 */
const laggingTeams = (lagReads: number) => {
  const stored = new Map<string, string>();
  let reads = 0;
  const entry = (key: string, value: string) =>
    ({ key, operation: "PUT", string: () => value }) as unknown as KvEntry;
  const kv = {
    get: async (key: string) => {
      reads++;
      const value = stored.get(key);
      return reads <= lagReads || value === undefined ? null : entry(key, value);
    },
    create: async (key: string, value: string) => {
      if (stored.has(key)) throw new Error("wrong last sequence: 1");
      stored.set(key, value);
      return 1;
    },
    put: async (key: string, value: string) => {
      stored.set(key, value);
      return 1;
    },
  };
  return { kv: kv as unknown as KV, stored };
};

const theirs = new Team({
  team_id: "01JTHEIRTEAM00000000000000",
  name: "acme",
  created_at: "2026-11-24T00:00:00.000Z",
  monthly_cu_quota: null,
});

/** Another operator's call got there first: it created the name and wrote its team. */
const createdByAnother = (teams: ReturnType<typeof laggingTeams>) => {
  teams.stored.set("name.acme", theirs.team_id);
  teams.stored.set(`team.${theirs.team_id}`, JSON.stringify(theirs));
};

const run = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const fiber = yield* Effect.fork(effect);
      yield* TestClock.adjust("10 seconds");
      return yield* Fiber.join(fiber);
    }).pipe(Effect.provide(TestContext.TestContext)),
  );

describe("two calls making the same new team at once", () => {
  it("behavior: the call that loses the name uses the winner's team, even while its reads lag, and writes no team of its own", async () => {
    const teams = laggingTeams(3);
    // The winner's writes land after this call's first look found no team, before its create.
    const kv = teams.kv;
    const create = kv.create.bind(kv);
    kv.create = async (key: string, value: string) => {
      createdByAnother(teams);
      return create(key, value);
    };
    const buckets: KeyBuckets = { keys: laggingTeams(0).kv, teams: kv };
    const team = await run(ensureTeam(buckets, "Acme"));
    expect(team.team_id).toBe(theirs.team_id);
    expect([...teams.stored.keys()].filter((key) => key.startsWith("team."))).toEqual([
      `team.${theirs.team_id}`,
    ]);
  });

  it("error: a team that stays unreadable is an error saying to try again, not a second team", async () => {
    const teams = laggingTeams(Number.POSITIVE_INFINITY);
    teams.stored.set("name.acme", theirs.team_id);
    const buckets: KeyBuckets = { keys: laggingTeams(0).kv, teams: teams.kv };
    const failed = await run(Effect.flip(ensureTeam(buckets, "acme")));
    expect(failed.message).toContain('team "acme" cannot be read yet; try again');
    expect([...teams.stored.keys()]).toEqual(["name.acme"]);
  });

  it("behavior: a name whose writer stopped before writing the team gets the record under the name's id", async () => {
    const teams = laggingTeams(0);
    teams.stored.set("name.acme", theirs.team_id);
    const buckets: KeyBuckets = { keys: laggingTeams(0).kv, teams: teams.kv };
    const team = await run(ensureTeam(buckets, "acme"));
    expect(team.team_id).toBe(theirs.team_id);
    expect(team.name).toBe("acme");
    expect([...teams.stored.keys()].sort()).toEqual(["name.acme", `team.${theirs.team_id}`]);
  });
});
