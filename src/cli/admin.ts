import { Effect, Layer } from "effect";
import * as AppConfig from "../AppConfig.js";
import { callAdmin } from "../admin/AdminClient.js";
import { discoveryLine, registryLine } from "../admin/chainStatusLines.js";
import { formatTable } from "../admin/formatTable.js";
import {
  createKey,
  type KeyBuckets,
  listKeys,
  listTeams,
  revokeKey,
  setTeamQuota,
} from "../api/keys/KeyStore.js";
import { adminChainsStatus, adminGetUsage } from "../contracts/Admin.js";
import { RateLimit } from "../domain/ApiKey.js";
import { resolveBroker } from "../nats/Broker.js";
import { openBucket } from "../nats/JetStreamSetup.js";
import { NatsConnections, layer as natsLayer } from "../nats/NatsConnections.js";
import { print, runCli } from "./runCli.js";

const USAGE = `Usage: npm run admin -- <command>

  keys create --team <name> [--rps <n> --burst <n>]   create an API key (printed once, as the last line)
  keys list                                           list keys with their team and state
  keys revoke <key_id>                                revoke a key
  teams list                                          list teams and their monthly CU quota
  teams quota <team> <cu|none>                        set or remove a team's monthly CU quota
  usage [--team <team_id>] [--hours <n>]              CU and requests per hour, team, key and endpoint
  chains                                              each chain's ingest, index, wallet discovery and registry backfill

Connects to NATS_URL (with NATS_USER/NATS_PASSWORD or NATS_CREDENTIALS_FILE), or to
127.0.0.1:4222 with the credentials the service wrote under DATA_DIR.`;

const flag = (args: ReadonlyArray<string>, name: string): string | undefined => {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
};

const positiveNumber = (raw: string | undefined, name: string): number | undefined => {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number (got "${raw}").`);
  return n;
};

const run = (args: ReadonlyArray<string>, buckets: KeyBuckets) =>
  Effect.gen(function* () {
    const nc = yield* (yield* NatsConnections).get("admin");
    const [area, verb, arg] = args;
    switch (`${area} ${verb}`) {
      case "keys create": {
        const team = flag(args, "--team");
        if (team === undefined) return yield* Effect.fail(new Error("keys create needs --team <name>."));
        const rps = positiveNumber(flag(args, "--rps"), "--rps");
        const burst = positiveNumber(flag(args, "--burst"), "--burst");
        const limit =
          rps === undefined
            ? null
            : new RateLimit({ requests_per_second: rps, burst: burst ?? Math.ceil(rps * 2) });
        const created = yield* createKey(buckets, team, limit);
        yield* print(
          `Created key ${created.record.key_id} for team ${created.team.name} (${created.team.team_id}).`,
        );
        yield* print("Store it now: it is shown only this once.");
        return yield* print(created.key);
      }
      case "keys list": {
        const [keys, teams] = yield* Effect.all([listKeys(buckets), listTeams(buckets)]);
        const names = new Map(teams.map((t) => [t.team_id, t.name]));
        const rows = keys.map((k) => [
          k.key_id,
          names.get(k.team_id) ?? k.team_id,
          `${k.prefix}…`,
          k.created_at,
          k.revoked_at === null ? "active" : `revoked ${k.revoked_at}`,
        ]);
        return yield* print(formatTable(["KEY ID", "TEAM", "PREFIX", "CREATED", "STATE"], rows));
      }
      case "keys revoke": {
        if (arg === undefined) return yield* Effect.fail(new Error("keys revoke needs a key id."));
        const record = yield* revokeKey(buckets, arg);
        return yield* print(`Revoked ${record.key_id} at ${record.revoked_at}.`);
      }
      case "teams list": {
        const teams = yield* listTeams(buckets);
        const rows = teams.map((t) => [
          t.team_id,
          t.name,
          t.monthly_cu_quota === null ? "unlimited" : String(t.monthly_cu_quota),
          t.created_at,
        ]);
        return yield* print(formatTable(["TEAM ID", "NAME", "MONTHLY CU QUOTA", "CREATED"], rows));
      }
      case "teams quota": {
        const raw = args[3];
        if (arg === undefined || raw === undefined)
          return yield* Effect.fail(new Error("teams quota needs <team> <cu|none>."));
        const quota = raw === "none" ? null : Number(raw);
        if (quota !== null && (!Number.isSafeInteger(quota) || quota < 0)) {
          return yield* Effect.fail(
            new Error(`The quota must be a whole number of CU or "none" (got "${raw}").`),
          );
        }
        const team = yield* setTeamQuota(buckets, arg, quota);
        return yield* print(
          `Team ${team.name}: monthly quota ${quota === null ? "unlimited" : `${quota} CU`}.`,
        );
      }
      default:
        if (area === "chains" && (verb === undefined || verb === "status")) {
          const { chains } = yield* callAdmin(nc, adminChainsStatus, {});
          const dash = (n: number | null | undefined) => (n === null || n === undefined ? "-" : String(n));
          yield* print(
            formatTable(
              ["CHAIN", "NAME", "MODE", "HEAD", "PROCESSED", "LAG", "INDEX FROM", "LAST ERROR"],
              chains.map((c) => [
                String(c.chain_id),
                c.name,
                c.store_full === true ? `${c.mode} (store full)` : c.mode,
                dash(c.head),
                dash(c.processed),
                dash(c.lag),
                dash(c.indexed_from),
                c.last_error === null ? "-" : c.last_error.slice(0, 60),
              ]),
            ),
          );
          // What the answering API worker discovers where the index lacks a chain's history.
          for (const chain of chains)
            for (const line of [discoveryLine(chain), registryLine(chain)])
              if (line !== undefined) yield* print(`${chain.chain_id} ${chain.name}: ${line.text}`);
          return;
        }
        if (area === "usage") {
          const hours = positiveNumber(flag(args, "--hours"), "--hours") ?? 24;
          const team = flag(args, "--team");
          const { rows } = yield* callAdmin(nc, adminGetUsage, {
            from: new Date(Date.now() - hours * 3_600_000).toISOString(),
            ...(team === undefined ? {} : { team_id: team }),
          });
          return yield* print(
            formatTable(
              ["HOUR (UTC)", "TEAM", "KEY", "ENDPOINT", "REQUESTS", "ERRORS", "CU"],
              rows.map((r) => [
                r.hour,
                r.team_id,
                r.key_id,
                r.endpoint,
                String(r.requests),
                String(r.errors),
                String(r.cu),
              ]),
            ),
          );
        }
        return yield* Effect.fail(new Error(USAGE));
    }
  });

const main = Effect.gen(function* () {
  const args = process.argv.slice(2);
  if (args.length === 0 || args.includes("--help")) return yield* print(USAGE);
  const settings = yield* AppConfig.appSettings;
  const broker = yield* resolveBroker(settings, { spawnIfAbsent: false });
  yield* Effect.gen(function* () {
    const nc = yield* (yield* NatsConnections).get("admin");
    const [keys, teams] = yield* Effect.all([openBucket(nc, "keys"), openBucket(nc, "teams")]);
    yield* run(args, { keys, teams });
  }).pipe(Effect.provide(Layer.fresh(natsLayer(broker))));
});

runCli(main);
