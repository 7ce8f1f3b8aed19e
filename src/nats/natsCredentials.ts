import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { NATS_USERS, type NatsUser } from "./NatsUser.js";

/** Passwords of the spawned nats-server's users, by user. */
export type NatsCredentials = Readonly<Record<NatsUser, string>>;

/** Where the spawned server's credentials live, readable only by the owner. */
export const credentialsPath = (dataDir: string): string => join(dataDir, "nats", "credentials.json");

/**
 * Loads the credentials of a spawned nats-server, creating them on first use.
 * They are kept across restarts so that the admin CLI and TUI, started in other
 * processes, can connect with the `admin` user. A file written before a user
 * existed (e.g. `provision`) gets that user's password added, keeping the others.
 */
export const loadOrCreateCredentials = async (dataDir: string): Promise<NatsCredentials> => {
  const path = credentialsPath(dataDir);
  const existing = (await readCredentials(dataDir)) ?? {};
  if (NATS_USERS.every((user) => existing[user] !== undefined)) return existing as NatsCredentials;
  const completed = Object.fromEntries(
    NATS_USERS.map((user) => [user, existing[user] ?? randomBytes(24).toString("base64url")]),
  ) as NatsCredentials;
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(completed, null, 2), { mode: 0o600 });
  return completed;
};

/** The passwords the credentials file holds (possibly not every user's), or `undefined` when absent or unreadable. */
export const readCredentials = (dataDir: string): Promise<Partial<Record<NatsUser, string>> | undefined> =>
  readCredentialsFile(credentialsPath(dataDir));

/**
 * The passwords of a credentials file (`{"gateway": "...", "api": "..."}`, the
 * layout above), or `undefined` when it is absent, unreadable or names no user.
 * A process given such a file (NATS_CREDENTIALS_FILE) connects each of its
 * roles as that role's own user.
 */
export const readCredentialsFile = async (
  path: string,
): Promise<Partial<Record<NatsUser, string>> | undefined> => {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, "utf8"));
    if (typeof parsed !== "object" || parsed === null) return undefined;
    const entries = NATS_USERS.flatMap((user) => {
      const pass = (parsed as Record<string, unknown>)[user];
      return typeof pass === "string" ? [[user, pass] as const] : [];
    });
    return entries.length === 0 ? undefined : Object.fromEntries(entries);
  } catch {
    return undefined;
  }
};
