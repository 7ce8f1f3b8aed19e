/**
 * The NATS users of nats.conf: one per role, `admin` for operator tools (TUI,
 * CLI), and `provision`, the only identity that creates, updates or deletes
 * streams and KV buckets.
 */
export const NATS_USERS = ["gateway", "api", "ingest", "admin", "provision"] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/** Environment variable through which nats.conf receives a user's password. */
export const passwordVariable = (user: NatsUser): string => `SVC_NATS_${user.toUpperCase()}_PASSWORD`;

/**
 * The user's own reply-subject prefix (`_INBOX.<user>`). nats.conf lets each
 * user subscribe only under its own prefix, so no role can read the replies
 * (API answers, webhook secrets, new API keys, KV reads) sent to another.
 */
export const inboxPrefix = (user: NatsUser): string => `_INBOX.${user}`;
