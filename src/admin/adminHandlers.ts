import { Effect } from "effect";
import {
  createKey,
  type KeyBuckets,
  listKeys,
  listTeams,
  revokeKey,
  setTeamQuota,
} from "../api/keys/KeyStore.js";
import {
  adminChainsStatus,
  adminCreateKey,
  adminGetUsage,
  adminIndexWallet,
  adminListKeys,
  adminListTeams,
  adminRevokeKey,
  adminSetTeamQuota,
} from "../contracts/Admin.js";
import { Discovery } from "../discovery/Discovery.js";
import { discoveryCounts } from "../discovery/discoveryCounts.js";
import { registryBackfillStatus } from "../discovery/registryBackfillStatus.js";
import { RateLimit } from "../domain/ApiKey.js";
import { Index } from "../indexer/IndexReader.js";
import { IngestStatusBook } from "../ingest/IngestStatusBook.js";
import { UsageBook } from "../usage/UsageBook.js";
import { AdminFailure, type AdminHandler, adminHandler } from "./AdminServer.js";
import { makeWebhookAdminHandlers, type WebhookAdminServices } from "./webhookAdminHandlers.js";

const DAY_MS = 24 * 3_600_000;

/** Maps store errors to failures an operator can read; infrastructure errors become 500s. */
const toFailure = <A, E extends { _tag: string; message: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchAll(effect, (error) =>
    error._tag === "KeyStoreError"
      ? Effect.die(error)
      : Effect.fail(
          new AdminFailure({
            code:
              error._tag === "KeyNotFound" || error._tag === "TeamNotFound" ? "NOT_FOUND" : "INVALID_PAYLOAD",
            message: error.message,
          }),
        ),
  );

const parseTime = (value: string | undefined, fallback: number) =>
  Effect.suspend(() => {
    if (value === undefined) return Effect.succeed(fallback);
    const ms = Date.parse(value);
    return Number.isNaN(ms)
      ? Effect.fail(
          new AdminFailure({ code: "INVALID_PAYLOAD", message: `"${value}" is not an ISO date-time.` }),
        )
      : Effect.succeed(ms);
  });

export const makeAdminHandlers = (
  buckets: KeyBuckets,
): ReadonlyArray<AdminHandler<UsageBook | IngestStatusBook | Index | Discovery | WebhookAdminServices>> => [
  adminHandler(adminCreateKey, (payload) =>
    toFailure(
      createKey(
        buckets,
        payload.team,
        payload.requests_per_second === undefined
          ? null
          : new RateLimit({
              requests_per_second: payload.requests_per_second,
              burst: payload.burst ?? Math.ceil(payload.requests_per_second * 2),
            }),
      ),
    ),
  ),
  adminHandler(adminListKeys, () =>
    toFailure(
      Effect.gen(function* () {
        const [keys, teams] = yield* Effect.all([listKeys(buckets), listTeams(buckets)]);
        const names = new Map(teams.map((team) => [team.team_id, team.name]));
        return { keys: keys.map((key) => ({ ...key, team_name: names.get(key.team_id) ?? "?" })) };
      }),
    ),
  ),
  adminHandler(adminRevokeKey, (payload) =>
    toFailure(Effect.map(revokeKey(buckets, payload.key_id), (record) => ({ record }))),
  ),
  adminHandler(adminListTeams, () => toFailure(Effect.map(listTeams(buckets), (teams) => ({ teams })))),
  adminHandler(adminSetTeamQuota, (payload) =>
    toFailure(
      Effect.map(setTeamQuota(buckets, payload.team, payload.monthly_cu_quota), (team) => ({ team })),
    ),
  ),
  adminHandler(adminIndexWallet, (payload) =>
    Effect.flatMap(Index, (index) =>
      Effect.promise(async () => ({
        tokens: await index.reader.touchedTokens(payload.wallet.toLowerCase()),
      })),
    ),
  ),
  adminHandler(adminChainsStatus, () =>
    Effect.gen(function* () {
      const book = yield* IngestStatusBook;
      const discovery = yield* Discovery;
      const { wallets } = yield* Index;
      const discovered = discovery.stats();
      return {
        chains: book.all().map((status) => {
          const counts = discoveryCounts(
            discovered.get(status.chain_id),
            status.indexed_from,
            wallets.partialOn(status.chain_id),
          );
          const registry = registryBackfillStatus(
            discovery.registryProgress(status.chain_id),
            status.indexed_from,
          );
          const recorded = wallets.recordedWallets(status.chain_id);
          return {
            ...status,
            ...(counts === undefined ? {} : { discovery: counts }),
            ...(recorded === undefined ? {} : { indexed_wallets: recorded }),
            ...(registry === undefined ? {} : { registry_backfill: registry }),
          };
        }),
      };
    }),
  ),
  adminHandler(adminGetUsage, (payload) =>
    Effect.gen(function* () {
      const book = yield* UsageBook;
      const to = yield* parseTime(payload.to, Date.now());
      const from = yield* parseTime(payload.from, to - DAY_MS);
      const rows = yield* book
        .rows(from, to, payload.team_id)
        .pipe(Effect.mapError((error) => new AdminFailure({ code: error.code, message: error.message })));
      return { rows };
    }),
  ),
  ...makeWebhookAdminHandlers(buckets),
];
