import type { NatsConnection } from "@nats-io/transport-node";
import type { NatsUser } from "../../src/nats/NatsUser.js";
import { type Outcome, tryRequest, trySubscribe } from "./natsAttempts.js";

/* The kinds of forbidden action the permission tests try, built per user; the lists are in forbiddenNatsActions.ts. */

/** Something a NATS user must not be able to do, and how to try it. */
export interface ForbiddenAction {
  readonly user: NatsUser;
  readonly what: string;
  readonly attempt: (nc: NatsConnection) => Promise<Outcome>;
  /** Destroys data if it succeeds: tried after everything else. */
  readonly destructive?: boolean;
}

/** Keys the test writes before trying (as their owners), so a read that got through would return them. */
export const SEEDED = {
  webhook: "hook.seeded",
  key: "hash.seeded",
  setting: "cursor_secret",
  lease: "1",
  delivery: "lease.00",
  blocks: "c.1",
} as const;

const STREAMS = [
  "CHAIN_EVENTS",
  "USAGE",
  "KV_keys",
  "KV_teams",
  "KV_usage",
  "KV_settings",
  "KV_webhooks",
  "KV_presence",
  "KV_ingest_status",
  "KV_chain_leases",
  "KV_webhook_outbox",
  "KV_webhook_blocks",
  "OBJ_index_snapshots",
] as const;

/** A JetStream API call (or any request) on `subject`. */
export const call = (user: NatsUser, what: string, subject: string, body = ""): ForbiddenAction => ({
  user,
  what,
  attempt: (nc) => tryRequest(nc, subject, body),
});

/** A publish on `subject` (with a reply subject, so a refusal is reported). */
export const publish = (
  user: NatsUser,
  subject: string,
  headers: Record<string, string> = {},
): ForbiddenAction => ({
  user,
  what: `publish ${subject}${Object.keys(headers).length > 0 ? ` with ${JSON.stringify(headers)}` : ""}`,
  attempt: (nc) => tryRequest(nc, subject, "{}", headers),
});

/** A subscription to `subject`. */
export const subscribe = (user: NatsUser, subject: string): ForbiddenAction => ({
  user,
  what: `subscribe ${subject}`,
  attempt: (nc) => trySubscribe(nc, subject),
});

/** The body of a consumer-create request for a pull consumer reading the whole stream. */
export const consumerConfig = (stream: string, name: string) =>
  JSON.stringify({ stream_name: stream, config: { name, ack_policy: "none", deliver_policy: "all" } });

/** Reading a bucket's values: direct get, stream message get, a consumer of one's own, a subscription. */
export const readBucket = (user: NatsUser, bucket: string, key: string, { withSubscribe = true } = {}) => [
  call(user, `read ${bucket} by direct get`, `$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.${key}`),
  call(
    user,
    `read ${bucket} by stream message get`,
    `$JS.API.STREAM.MSG.GET.KV_${bucket}`,
    JSON.stringify({ last_by_subj: `$KV.${bucket}.${key}` }),
  ),
  call(
    user,
    `read ${bucket} through a consumer of its own`,
    `$JS.API.CONSUMER.CREATE.KV_${bucket}.snoop_${user}`,
    consumerConfig(`KV_${bucket}`, `snoop_${user}`),
  ),
  ...(withSubscribe ? [subscribe(user, `$KV.${bucket}.>`)] : []),
];

/** Taking over the webhook notifier's durable consumer: stealing, acknowledging (skipping) or deleting its blocks. */
export const notifierConsumer = (user: NatsUser) => [
  call(
    user,
    "pull the webhook notifier's blocks",
    "$JS.API.CONSUMER.MSG.NEXT.CHAIN_EVENTS.webhook-notifier",
    "{}",
  ),
  publish(user, "$JS.ACK.CHAIN_EVENTS.webhook-notifier.1.1.1.1700000000000000000.0"),
  call(
    user,
    "delete the webhook notifier's consumer",
    "$JS.API.CONSUMER.DELETE.CHAIN_EVENTS.webhook-notifier",
  ),
];

/** Changing the JetStream layout: a stream on svc.> (recording every API request and key), editing streams. */
export const changeLayout = (user: NatsUser) => [
  call(
    user,
    "create a stream on svc.>",
    `$JS.API.STREAM.CREATE.SNOOP_${user}`,
    JSON.stringify({ name: `SNOOP_${user}`, subjects: ["svc.>"] }),
  ),
  call(
    user,
    "add a subject to CHAIN_EVENTS",
    "$JS.API.STREAM.UPDATE.CHAIN_EVENTS",
    JSON.stringify({ name: "CHAIN_EVENTS", subjects: ["chain.>", `forged_${user}.>`] }),
  ),
  call(
    user,
    "change KV_webhooks' retention",
    "$JS.API.STREAM.UPDATE.KV_webhooks",
    JSON.stringify({ name: "KV_webhooks", subjects: ["$KV.webhooks.>"], max_age: 1_000_000_000 }),
  ),
];

/** Purging and deleting streams (`except` a stream the user may delete). */
export const destroy = (
  user: NatsUser,
  except: ReadonlyArray<string> = [],
): ReadonlyArray<ForbiddenAction> => [
  ...["CHAIN_EVENTS", "USAGE", "KV_keys", "KV_webhooks"].map((stream) => ({
    ...call(user, `purge ${stream}`, `$JS.API.STREAM.PURGE.${stream}`),
    destructive: true,
  })),
  ...STREAMS.filter((s) => !except.includes(s)).map((stream) => ({
    ...call(user, `delete ${stream}`, `$JS.API.STREAM.DELETE.${stream}`),
    destructive: true,
  })),
];
