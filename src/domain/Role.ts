/**
 * The roles a process can run (`--roles`). One process runs all of them by default;
 * stateless ones (gateway, api) are scaled out by running more processes with the
 * same NATS server. Each role connects to NATS with its own credentials.
 */
export const ALL_ROLES = ["gateway", "api", "ingest"] as const;
export type Role = (typeof ALL_ROLES)[number];
