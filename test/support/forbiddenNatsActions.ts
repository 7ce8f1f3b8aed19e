import type { NatsConnection } from "@nats-io/transport-node";
import type { NatsUser } from "../../src/nats/NatsUser.js";
import { type Outcome, tryRequest, trySubscribe } from "./natsAttempts.js";

/** Something a NATS user must not be able to do, and how to try it. */
export interface ForbiddenAction {
  readonly user: NatsUser;
  readonly what: string;
  readonly attempt: (nc: NatsConnection) => Promise<Outcome>;
  /** Destroys data if it succeeds: tried after everything else. */
  readonly destructive?: boolean;
}

/** Keys the test writes before trying (as their owners), so a read that got through would return them. */
export const SEEDED = { webhook: "hook.seeded", key: "hash.seeded", setting: "cursor_secret" } as const;

const STREAMS = [
  "CHAIN_EVENTS",
  "USAGE",
  "KV_keys",
  "KV_teams",
  "KV_usage",
  "KV_settings",
  "KV_webhooks",
  "KV_webhook_addresses",
  "KV_presence",
  "KV_ingest_status",
] as const;

const call = (user: NatsUser, what: string, subject: string, body = ""): ForbiddenAction => ({
  user,
  what,
  attempt: (nc) => tryRequest(nc, subject, body),
});

const publish = (user: NatsUser, subject: string, headers: Record<string, string> = {}): ForbiddenAction => ({
  user,
  what: `publish ${subject}${Object.keys(headers).length > 0 ? ` with ${JSON.stringify(headers)}` : ""}`,
  attempt: (nc) => tryRequest(nc, subject, "{}", headers),
});

const subscribe = (user: NatsUser, subject: string): ForbiddenAction => ({
  user,
  what: `subscribe ${subject}`,
  attempt: (nc) => trySubscribe(nc, subject),
});

const consumerConfig = (stream: string, name: string) =>
  JSON.stringify({ stream_name: stream, config: { name, ack_policy: "none", deliver_policy: "all" } });

/** Reading a bucket's values: direct get, stream message get, a consumer of one's own, a subscription. */
const readBucket = (user: NatsUser, bucket: string, key: string, { withSubscribe = true } = {}) => [
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
const notifierConsumer = (user: NatsUser) => [
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
const changeLayout = (user: NatsUser) => [
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
const destroy = (user: NatsUser, except: ReadonlyArray<string> = []): ReadonlyArray<ForbiddenAction> => [
  ...["CHAIN_EVENTS", "USAGE", "KV_keys", "KV_webhooks"].map((stream) => ({
    ...call(user, `purge ${stream}`, `$JS.API.STREAM.PURGE.${stream}`),
    destructive: true,
  })),
  ...STREAMS.filter((s) => !except.includes(s)).map((stream) => ({
    ...call(user, `delete ${stream}`, `$JS.API.STREAM.DELETE.${stream}`),
    destructive: true,
  })),
];

const gateway: ReadonlyArray<ForbiddenAction> = [
  call("gateway", "use the JetStream API at all", "$JS.API.INFO"),
  call("gateway", "list streams", "$JS.API.STREAM.LIST"),
  call("gateway", "read CHAIN_EVENTS' info", "$JS.API.STREAM.INFO.CHAIN_EVENTS"),
  ...readBucket("gateway", "keys", SEEDED.key),
  ...readBucket("gateway", "webhooks", SEEDED.webhook),
  ...readBucket("gateway", "settings", SEEDED.setting),
  ...[
    "$KV.keys.hash.forged",
    "$KV.webhooks.hook.forged",
    "$KV.presence.api.forged",
    "$KV.ingest_status.1",
  ].map((s) => publish("gateway", s)),
  ...["chain.1.block", "usage.team", "admin.keys.list", "webhooks.node.deliveries.redeliver"].map((s) =>
    publish("gateway", s),
  ),
  call("gateway", "read CHAIN_EVENTS through a consumer", "$JS.API.CONSUMER.CREATE.CHAIN_EVENTS.snoop"),
  ...notifierConsumer("gateway"),
  ...[
    "svc.>",
    "admin.>",
    "chain.>",
    "usage.>",
    "webhooks.node.>",
    "_INBOX.>",
    "_INBOX.api.>",
    "_INBOX.admin.>",
  ].map((s) => subscribe("gateway", s)),
  ...changeLayout("gateway"),
  ...destroy("gateway"),
];

const ingest: ReadonlyArray<ForbiddenAction> = [
  call("ingest", "list streams", "$JS.API.STREAM.LIST"),
  ...readBucket("ingest", "webhooks", SEEDED.webhook),
  ...readBucket("ingest", "keys", SEEDED.key),
  ...readBucket("ingest", "settings", SEEDED.setting),
  ...[
    "$KV.keys.hash.forged",
    "$KV.webhooks.hook.forged",
    "$KV.teams.team.forged",
    "$KV.presence.api.forged",
  ].map((s) => publish("ingest", s)),
  {
    ...publish("ingest", `$KV.keys.${SEEDED.key}`, { "Nats-Rollup": "all" }),
    what: "purge KV_keys by a rollup",
  },
  ...["usage.team", "admin.keys.list", "svc.v1.account.get", "webhooks.node.deliveries.redeliver"].map((s) =>
    publish("ingest", s),
  ),
  call(
    "ingest",
    "read USAGE through a consumer",
    "$JS.API.CONSUMER.CREATE.USAGE.snoop",
    consumerConfig("USAGE", "snoop"),
  ),
  ...notifierConsumer("ingest"),
  ...["svc.>", "admin.>", "chain.>", "usage.>", "_INBOX.>", "_INBOX.gateway.>", "_INBOX.api.>", "$KV.>"].map(
    (s) => subscribe("ingest", s),
  ),
  ...changeLayout("ingest"),
  ...destroy("ingest"),
];

const api: ReadonlyArray<ForbiddenAction> = [
  publish("api", "chain.1.block"),
  call(
    "api",
    "create a stream at all",
    "$JS.API.STREAM.CREATE.EVIL",
    JSON.stringify({ name: "EVIL", subjects: ["evil.>"] }),
  ),
  call(
    "api",
    "create a KV bucket",
    "$JS.API.STREAM.CREATE.KV_evil",
    JSON.stringify({ name: "KV_evil", subjects: ["$KV.evil.>"] }),
  ),
  ...["$KV.ingest_status.1", "$KV.presence.ingest.forged", "$KV.presence.gateway.forged"].map((s) =>
    publish("api", s),
  ),
  ...["admin.keys.list", "svc.v1.account.get"].map((s) => publish("api", s)),
  call(
    "api",
    "read USAGE through another consumer",
    "$JS.API.CONSUMER.CREATE.USAGE.snoop",
    consumerConfig("USAGE", "snoop"),
  ),
  ...["_INBOX.>", "_INBOX.gateway.>", "_INBOX.admin.>", "chain.>", "usage.>", "$KV.>"].map((s) =>
    subscribe("api", s),
  ),
  ...changeLayout("api"),
  ...destroy("api"),
];

const admin: ReadonlyArray<ForbiddenAction> = [
  // `$KV.webhooks.>` is the TUI's change notification, which carries only sealed secrets.
  ...readBucket("admin", "webhooks", SEEDED.webhook, { withSubscribe: false }),
  ...readBucket("admin", "webhook_addresses", "seeded", { withSubscribe: true }),
  ...readBucket("admin", "settings", SEEDED.setting),
  ...[
    "$KV.webhooks.hook.forged",
    "$KV.settings.cursor_secret",
    "$KV.presence.api.forged",
    "$KV.ingest_status.1",
  ].map((s) => publish("admin", s)),
  ...["chain.1.block", "usage.team", "webhooks.node.deliveries.redeliver"].map((s) => publish("admin", s)),
  call("admin", "read CHAIN_EVENTS through a consumer", "$JS.API.CONSUMER.CREATE.CHAIN_EVENTS.snoop"),
  call(
    "admin",
    "read USAGE through a consumer",
    "$JS.API.CONSUMER.CREATE.USAGE.snoop",
    consumerConfig("USAGE", "snoop"),
  ),
  ...notifierConsumer("admin"),
  ...["svc.>", "_INBOX.>", "_INBOX.gateway.>", "_INBOX.api.>", "chain.>"].map((s) => subscribe("admin", s)),
  ...changeLayout("admin"),
  ...destroy("admin"),
];

const provision: ReadonlyArray<ForbiddenAction> = [
  ...readBucket("provision", "webhooks", SEEDED.webhook),
  ...readBucket("provision", "keys", SEEDED.key),
  ...readBucket("provision", "settings", SEEDED.setting),
  ...["$KV.keys.hash.forged", "$KV.webhooks.hook.forged"].map((s) => publish("provision", s)),
  ...["chain.1.block", "usage.team", "svc.v1.account.get", "admin.keys.list"].map((s) =>
    publish("provision", s),
  ),
  call("provision", "read CHAIN_EVENTS through a consumer", "$JS.API.CONSUMER.CREATE.CHAIN_EVENTS.snoop"),
  ...["svc.>", "_INBOX.>", "chain.>"].map((s) => subscribe("provision", s)),
  call(
    "provision",
    "create a stream on svc.>",
    "$JS.API.STREAM.CREATE.SNOOP_provision",
    JSON.stringify({ name: "SNOOP_provision", subjects: ["svc.>"] }),
  ),
  ...destroy("provision", ["CHAIN_EVENTS"]),
];

/**
 * Every forbidden action, per user, the ones that would destroy data last (so
 * that, against a configuration that lets them through, they do not hide the
 * outcome of the others).
 */
export const FORBIDDEN_ACTIONS: ReadonlyArray<ForbiddenAction> = [
  ...[gateway, ingest, api, admin, provision].flatMap((list) => list.filter((a) => a.destructive !== true)),
  ...[gateway, ingest, api, admin, provision].flatMap((list) => list.filter((a) => a.destructive === true)),
];
