import { Schema } from "effect";
import { NoParams, NoQuery } from "./Common.js";
import { endpoint } from "./Endpoint.js";

export class AccountResponse extends Schema.Class<AccountResponse>("AccountResponse")({
  team_id: Schema.String,
  team_name: Schema.String,
  key_id: Schema.String,
  rate_limit: Schema.Struct({
    requests_per_second: Schema.Number,
    burst: Schema.Number,
  }),
  monthly_cu_quota: Schema.NullOr(Schema.Number),
  cu_used_this_month: Schema.Number,
}) {}

export const account = endpoint({
  operationId: "getAccount",
  method: "GET",
  path: "/v1/account",
  subject: "svc.v1.account.get",
  auth: "key",
  group: "account",
  summary: "The calling key's team, rate limit, monthly compute-unit quota and usage this month (UTC). 0 CU.",
  params: NoParams,
  query: NoQuery,
  body: undefined,
  response: AccountResponse,
  responseContentType: "application/json",
});
