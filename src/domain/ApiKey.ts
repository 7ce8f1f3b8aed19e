import { Schema } from "effect";

/** A team: the owner of API keys, webhooks and usage. */
export class Team extends Schema.Class<Team>("Team")({
  team_id: Schema.String,
  /** Unique, case-insensitive name chosen by the operator. */
  name: Schema.String,
  created_at: Schema.String,
  /** Compute units the team may spend per calendar month (UTC); null means unlimited. */
  monthly_cu_quota: Schema.NullOr(Schema.Number),
}) {}

/** Per-key token bucket: sustained requests per second and burst. */
export class RateLimit extends Schema.Class<RateLimit>("RateLimit")({
  requests_per_second: Schema.Number,
  burst: Schema.Number,
}) {}

/** What is stored about an API key. The key itself is never stored, only its SHA-256. */
export class ApiKeyRecord extends Schema.Class<ApiKeyRecord>("ApiKeyRecord")({
  key_id: Schema.String,
  team_id: Schema.String,
  /** First characters of the key, enough for an operator to recognise it. */
  prefix: Schema.String,
  created_at: Schema.String,
  revoked_at: Schema.NullOr(Schema.String),
  /** Overrides the deployment's default rate limit when set. */
  rate_limit: Schema.NullOr(RateLimit),
}) {}

export const TEAM_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
