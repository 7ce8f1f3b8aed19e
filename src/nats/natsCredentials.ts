import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { NATS_USERS, type NatsUser } from "./NatsUser.js";

/** Passwords of the spawned nats-server's users, by user. */
export type NatsCredentials = Readonly<Record<NatsUser, string>>;

/** Where the spawned server's credentials live, readable only by the owner. */
export const credentialsPath = (dataDir: string): string => join(dataDir, "nats", "credentials.json");

const isCredentials = (value: unknown): value is NatsCredentials =>
  typeof value === "object" &&
  value !== null &&
  NATS_USERS.every((user) => typeof (value as Record<string, unknown>)[user] === "string");

/**
 * Loads the credentials of a spawned nats-server, creating them on first use.
 * They are kept across restarts so that the admin CLI and TUI, started in other
 * processes, can connect with the `admin` user.
 */
export const loadOrCreateCredentials = async (dataDir: string): Promise<NatsCredentials> => {
  const path = credentialsPath(dataDir);
  const existing = await readCredentials(dataDir);
  if (existing !== undefined) return existing;
  const created = Object.fromEntries(
    NATS_USERS.map((user) => [user, randomBytes(24).toString("base64url")]),
  ) as NatsCredentials;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(created, null, 2), { mode: 0o600 });
  return created;
};

/** The credentials file, or `undefined` when absent or unreadable. */
export const readCredentials = async (dataDir: string): Promise<NatsCredentials | undefined> => {
  try {
    const parsed: unknown = JSON.parse(await readFile(credentialsPath(dataDir), "utf8"));
    return isCredentials(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
};
