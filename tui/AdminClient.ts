import type { NatsConnection, Subscription } from "@nats-io/transport-node";
import { Effect, Either, type Schema } from "effect";
import { callAdmin } from "../src/admin/AdminClient.js";
import {
  ADMIN_CHANGE_SUBJECTS,
  type AdminChangeArea,
  type AdminOperation,
  adminChainsStatus,
  adminCreateKey,
  adminGetUsage,
  adminGetWebhook,
  adminListKeys,
  adminListTeams,
  adminListWebhooks,
  adminRedeliverWebhook,
  adminRevokeKey,
  adminRotateWebhookSecret,
  adminSetWebhookActive,
  adminWebhookDeliveries,
} from "../src/contracts/Admin.js";
import { makeOperatorKey, OPERATOR_TEAM } from "./operatorKey.js";
import { makeWalletLookup, type WalletView } from "./walletLookup.js";

type Answer<O> = O extends AdminOperation<infer _P, infer R> ? Schema.Schema.Type<R> : never;
type Ask<O> = O extends AdminOperation<infer P, infer _R> ? Schema.Schema.Encoded<P> : never;

export type WebhookPage = Answer<typeof adminListWebhooks>;
export type WebhookQuery = Ask<typeof adminListWebhooks>;
export type WebhookDetail = Answer<typeof adminGetWebhook>;
export type UsageRows = Answer<typeof adminGetUsage>["rows"];
export type ChainRows = Answer<typeof adminChainsStatus>["chains"];
export type DeliveryStats = Answer<typeof adminWebhookDeliveries>["webhooks"][number];
export type KeyRows = Answer<typeof adminListKeys>["keys"];
export type TeamRows = Answer<typeof adminListTeams>["teams"];

/** The operator UI's only door to the service: typed admin calls and change notifications over NATS. */
export interface AdminClient {
  readonly listWebhooks: (query: WebhookQuery) => Promise<WebhookPage>;
  readonly getWebhook: (
    id: string,
    addressesOffset: number,
    addressesLimit: number,
  ) => Promise<WebhookDetail>;
  readonly setWebhookActive: (id: string, active: boolean) => Promise<Answer<typeof adminSetWebhookActive>>;
  readonly rotateWebhookSecret: (id: string) => Promise<Answer<typeof adminRotateWebhookSecret>>;
  /** Hourly usage rows from `fromHoursAgo` to `toHoursAgo` (default now). */
  /** Delivery figures of up to 500 webhooks. */
  readonly deliveries: (ids: ReadonlyArray<string>) => Promise<ReadonlyArray<DeliveryStats>>;
  readonly redeliver: (id: string) => Promise<Answer<typeof adminRedeliverWebhook>>;
  readonly usage: (fromHoursAgo: number, toHoursAgo?: number) => Promise<UsageRows>;
  readonly chains: () => Promise<ChainRows>;
  readonly listKeys: () => Promise<KeyRows>;
  readonly listTeams: () => Promise<TeamRows>;
  readonly createKey: (team: string) => Promise<Answer<typeof adminCreateKey>>;
  readonly revokeKey: (keyId: string) => Promise<Answer<typeof adminRevokeKey>>;
  /** A wallet's balances and positions on every chain, charged to the operator team (see operatorKey.ts). */
  readonly lookupWallet: (address: string) => Promise<WalletView>;
  /** Calls `onChange` whenever the area changes in the service; returns the unsubscribe. */
  readonly watch: (area: AdminChangeArea, onChange: () => void) => () => void;
}

/** A connection, or how to get one (retried on every call until NATS answers). */
export type ConnectionSource = NatsConnection | (() => Promise<NatsConnection>);

const CALL_TIMEOUT_MS = 5_000;
const RESUBSCRIBE_MS = 2_000;

export const makeAdminClient = (
  source: ConnectionSource,
  /** Where the operator team's key is kept between runs; unset: in memory only. */
  operatorKeyFile?: string,
): AdminClient => {
  const connection = typeof source === "function" ? source : () => Promise.resolve(source);
  const call = async <P extends Schema.Schema.AnyNoContext, R extends Schema.Schema.AnyNoContext>(
    operation: AdminOperation<P, R>,
    payload: Schema.Schema.Encoded<P>,
  ): Promise<Schema.Schema.Type<R>> => {
    const nc = await connection();
    const answer = await Effect.runPromise(Effect.either(callAdmin(nc, operation, payload, CALL_TIMEOUT_MS)));
    if (Either.isLeft(answer)) throw new Error(answer.left.message);
    return answer.right;
  };
  const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();
  return {
    listWebhooks: (query) => call(adminListWebhooks, query),
    getWebhook: (id, offset, limit) =>
      call(adminGetWebhook, { webhook_id: id, addresses_offset: offset, addresses_limit: limit }),
    setWebhookActive: (id, active) => call(adminSetWebhookActive, { webhook_id: id, active }),
    rotateWebhookSecret: (id) => call(adminRotateWebhookSecret, { webhook_id: id }),
    deliveries: async (ids) => (await call(adminWebhookDeliveries, { webhook_ids: [...ids] })).webhooks,
    redeliver: (id) => call(adminRedeliverWebhook, { webhook_id: id }),
    usage: async (fromHoursAgo, toHoursAgo = 0) =>
      (await call(adminGetUsage, { from: hoursAgo(fromHoursAgo), to: hoursAgo(toHoursAgo) })).rows,
    chains: async () => (await call(adminChainsStatus, {})).chains,
    listKeys: async () => (await call(adminListKeys, {})).keys,
    listTeams: async () => (await call(adminListTeams, {})).teams,
    createKey: (team) => call(adminCreateKey, { team }),
    revokeKey: (keyId) => call(adminRevokeKey, { key_id: keyId }),
    lookupWallet: makeWalletLookup(
      connection,
      makeOperatorKey(async () => (await call(adminCreateKey, { team: OPERATOR_TEAM })).key, operatorKeyFile),
    ),
    watch: (area, onChange) => {
      let stopped = false;
      let subscription: Subscription | undefined;
      let retry: ReturnType<typeof setTimeout> | undefined;
      const attempt = () =>
        connection().then(
          (nc) => {
            if (!stopped) subscription = nc.subscribe(ADMIN_CHANGE_SUBJECTS[area], { callback: onChange });
          },
          () => {
            if (!stopped) retry = setTimeout(attempt, RESUBSCRIBE_MS);
          },
        );
      void attempt();
      return () => {
        stopped = true;
        clearTimeout(retry);
        subscription?.unsubscribe();
      };
    },
  };
};
