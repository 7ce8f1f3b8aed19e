/** The NATS users of nats.conf: one per role, plus `admin` for operator tools (TUI, CLI). */
export const NATS_USERS = ["gateway", "api", "ingest", "admin"] as const;
export type NatsUser = (typeof NATS_USERS)[number];

/** Environment variable through which nats.conf receives a user's password. */
export const passwordVariable = (user: NatsUser): string => `SVC_NATS_${user.toUpperCase()}_PASSWORD`;
