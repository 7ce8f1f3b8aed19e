import { Schema } from "effect";
import { ApiKeyRecord, Team } from "../domain/ApiKey.js";
import { UsageRow } from "../domain/Usage.js";

/**
 * Operator operations on `admin.<area>.<verb>` subjects, served by the API
 * workers and called by the TUI and the admin CLI. Only the `admin` NATS user may
 * publish on them (nats.conf), so they carry no API key.
 */
export interface AdminOperation<P extends Schema.Schema.AnyNoContext, R extends Schema.Schema.AnyNoContext> {
  readonly subject: string;
  readonly payload: P;
  readonly response: R;
}

const operation = <P extends Schema.Schema.AnyNoContext, R extends Schema.Schema.AnyNoContext>(
  subject: string,
  payload: P,
  response: R,
): AdminOperation<P, R> => ({ subject, payload, response });

export const KeyListing = Schema.Struct({ ...ApiKeyRecord.fields, team_name: Schema.String });

export const adminCreateKey = operation(
  "admin.keys.create",
  Schema.Struct({
    team: Schema.String,
    requests_per_second: Schema.optional(Schema.Number.pipe(Schema.positive())),
    burst: Schema.optional(Schema.Int.pipe(Schema.positive())),
  }),
  Schema.Struct({ key: Schema.String, record: ApiKeyRecord, team: Team }),
);

export const adminListKeys = operation(
  "admin.keys.list",
  Schema.Struct({}),
  Schema.Struct({ keys: Schema.Array(KeyListing) }),
);

export const adminRevokeKey = operation(
  "admin.keys.revoke",
  Schema.Struct({ key_id: Schema.String }),
  Schema.Struct({ record: ApiKeyRecord }),
);

export const adminListTeams = operation(
  "admin.teams.list",
  Schema.Struct({}),
  Schema.Struct({ teams: Schema.Array(Team) }),
);

export const adminSetTeamQuota = operation(
  "admin.teams.quota.set",
  Schema.Struct({ team: Schema.String, monthly_cu_quota: Schema.NullOr(Schema.NonNegativeInt) }),
  Schema.Struct({ team: Team }),
);

export const adminGetUsage = operation(
  "admin.usage.get",
  Schema.Struct({
    /** ISO time; default 24 hours ago. */
    from: Schema.optional(Schema.String),
    /** ISO time; default now. */
    to: Schema.optional(Schema.String),
    team_id: Schema.optional(Schema.String),
  }),
  Schema.Struct({ rows: Schema.Array(UsageRow) }),
);

export const ChainStatus = Schema.Struct({
  chain_id: Schema.Number,
  name: Schema.String,
  head: Schema.NullOr(Schema.Number),
  processed: Schema.NullOr(Schema.Number),
  lag: Schema.NullOr(Schema.Number),
  mode: Schema.Literal("starting", "history", "live"),
  events_per_second: Schema.Number,
  blocks_published: Schema.Number,
  reorgs: Schema.Number,
  rpc_errors: Schema.Number,
  last_error: Schema.NullOr(Schema.String),
  updated_at: Schema.String,
});

export const adminChainsStatus = operation(
  "admin.chains.status",
  Schema.Struct({}),
  Schema.Struct({ chains: Schema.Array(ChainStatus) }),
);

export const adminIndexWallet = operation(
  "admin.index.wallet",
  Schema.Struct({ wallet: Schema.String.pipe(Schema.pattern(/^0x[0-9a-fA-F]{40}$/)) }),
  Schema.Struct({
    tokens: Schema.Array(
      Schema.Struct({
        chain_id: Schema.Number,
        token: Schema.String,
        standard: Schema.Literal("erc20", "erc721", "erc1155"),
        first_block: Schema.Number,
      }),
    ),
  }),
);

/** Error reply of an admin operation (also in the Nats-Service-Error headers). */
export const AdminError = Schema.Struct({ error: Schema.String, code: Schema.String });
