import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, type Schema } from "effect";
import { callAdmin } from "../src/admin/AdminClient.js";
import { type AdminOperation, adminGetUsage, adminListKeys, adminListTeams } from "../src/contracts/Admin.js";

/** The operator UI's only door to the service: typed admin calls over NATS. */
export interface AdminClient {
  readonly listKeys: () => Promise<Schema.Schema.Type<typeof adminListKeys.response>>;
  readonly listTeams: () => Promise<Schema.Schema.Type<typeof adminListTeams.response>>;
  readonly usage: (hours: number) => Promise<Schema.Schema.Type<typeof adminGetUsage.response>>;
}

const call = <P extends Schema.Schema.AnyNoContext, R extends Schema.Schema.AnyNoContext>(
  nc: NatsConnection,
  operation: AdminOperation<P, R>,
  payload: Schema.Schema.Encoded<P>,
) => Effect.runPromise(callAdmin(nc, operation, payload, 5_000));

export const makeAdminClient = (nc: NatsConnection): AdminClient => ({
  listKeys: () => call(nc, adminListKeys, {}),
  listTeams: () => call(nc, adminListTeams, {}),
  usage: (hours) => call(nc, adminGetUsage, { from: new Date(Date.now() - hours * 3_600_000).toISOString() }),
});
