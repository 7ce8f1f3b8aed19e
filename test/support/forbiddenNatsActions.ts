import type { NatsUser } from "../../src/nats/NatsUser.js";
import {
  call,
  changeLayout,
  consumerConfig,
  destroy,
  type ForbiddenAction,
  notifierConsumer,
  publish,
  readBucket,
  SEEDED,
  subscribe,
} from "./forbiddenActionKinds.js";

export { type ForbiddenAction, SEEDED } from "./forbiddenActionKinds.js";

/**
 * The index snapshot is what API workers with an empty DATA_DIR start from: a forged one would feed
 * them a forged index, so no other user may write it (chunks or metadata), purge it or read it.
 */
const snapshotStore = (user: NatsUser): ReadonlyArray<ForbiddenAction> => [
  publish(user, "$O.index_snapshots.M.aW5kZXg="),
  publish(user, "$O.index_snapshots.C.forged"),
  call(
    user,
    "read the index snapshot through a consumer",
    "$JS.API.CONSUMER.CREATE.OBJ_index_snapshots.snoop",
  ),
  call(
    user,
    "read the index snapshot's metadata",
    "$JS.API.DIRECT.GET.OBJ_index_snapshots.$O.index_snapshots.M.aW5kZXg=",
  ),
  {
    ...call(user, "purge the index snapshot", "$JS.API.STREAM.PURGE.OBJ_index_snapshots"),
    destructive: true,
  },
];

const gateway: ReadonlyArray<ForbiddenAction> = [
  ...snapshotStore("gateway"),
  call("gateway", "use the JetStream API at all", "$JS.API.INFO"),
  call("gateway", "list streams", "$JS.API.STREAM.LIST"),
  call("gateway", "read CHAIN_EVENTS' info", "$JS.API.STREAM.INFO.CHAIN_EVENTS"),
  ...readBucket("gateway", "keys", SEEDED.key),
  ...readBucket("gateway", "webhooks", SEEDED.webhook),
  ...readBucket("gateway", "settings", SEEDED.setting),
  ...readBucket("gateway", "chain_leases", SEEDED.lease),
  // Webhook bodies, delivery state and the outbox partitions' leases are the API processes' alone.
  ...readBucket("gateway", "webhook_outbox", SEEDED.delivery),
  ...readBucket("gateway", "webhook_blocks", SEEDED.blocks),
  {
    ...call("gateway", "purge the webhook outbox", "$JS.API.STREAM.PURGE.KV_webhook_outbox"),
    destructive: true,
  },
  ...[
    "$KV.keys.hash.forged",
    "$KV.webhooks.hook.forged",
    "$KV.presence.api.forged",
    "$KV.ingest_status.1",
    "$KV.chain_leases.1",
    "$KV.webhook_outbox.lease.00",
    "$KV.webhook_blocks.c.1",
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
  ...snapshotStore("ingest"),
  call("ingest", "list streams", "$JS.API.STREAM.LIST"),
  ...readBucket("ingest", "webhook_outbox", SEEDED.delivery),
  ...readBucket("ingest", "webhook_blocks", SEEDED.blocks),
  {
    ...call("ingest", "purge the webhook outbox", "$JS.API.STREAM.PURGE.KV_webhook_outbox"),
    destructive: true,
  },
  ...readBucket("ingest", "webhooks", SEEDED.webhook),
  ...readBucket("ingest", "keys", SEEDED.key),
  ...readBucket("ingest", "settings", SEEDED.setting),
  ...[
    "$KV.keys.hash.forged",
    "$KV.webhooks.hook.forged",
    "$KV.teams.team.forged",
    "$KV.presence.api.forged",
    "$KV.webhook_outbox.lease.00",
    "$KV.webhook_blocks.c.1",
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
  ...[
    "$KV.ingest_status.1",
    "$KV.chain_leases.1",
    "$KV.presence.ingest.forged",
    "$KV.presence.gateway.forged",
  ].map((s) => publish("api", s)),
  // Which process follows a chain, and where it stands, is the ingest processes' alone.
  ...readBucket("api", "chain_leases", SEEDED.lease, { withSubscribe: false }),
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
  ...snapshotStore("admin"),
  // `$KV.webhooks.>` is the TUI's change notification, which carries only sealed secrets.
  ...readBucket("admin", "webhooks", SEEDED.webhook, { withSubscribe: false }),
  ...readBucket("admin", "settings", SEEDED.setting),
  ...readBucket("admin", "chain_leases", SEEDED.lease),
  ...readBucket("admin", "webhook_outbox", SEEDED.delivery),
  ...readBucket("admin", "webhook_blocks", SEEDED.blocks),
  {
    ...call("admin", "purge the webhook outbox", "$JS.API.STREAM.PURGE.KV_webhook_outbox"),
    destructive: true,
  },
  ...[
    "$KV.webhooks.hook.forged",
    "$KV.settings.cursor_secret",
    "$KV.presence.api.forged",
    "$KV.ingest_status.1",
    "$KV.chain_leases.1",
    "$KV.webhook_outbox.lease.00",
    "$KV.webhook_blocks.c.1",
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
  ...snapshotStore("provision"),
  ...readBucket("provision", "webhooks", SEEDED.webhook),
  ...readBucket("provision", "keys", SEEDED.key),
  ...readBucket("provision", "settings", SEEDED.setting),
  ...readBucket("provision", "chain_leases", SEEDED.lease),
  ...readBucket("provision", "webhook_outbox", SEEDED.delivery),
  {
    ...call("provision", "purge the webhook outbox", "$JS.API.STREAM.PURGE.KV_webhook_outbox"),
    destructive: true,
  },
  ...[
    "$KV.keys.hash.forged",
    "$KV.webhooks.hook.forged",
    "$KV.chain_leases.1",
    "$KV.webhook_outbox.lease.00",
    "$KV.webhook_blocks.c.1",
  ].map((s) => publish("provision", s)),
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
  ...destroy("provision", ["CHAIN_EVENTS", "KV_chain_leases", "KV_webhook_blocks", "OBJ_index_snapshots"]),
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
