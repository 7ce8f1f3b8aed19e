import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Option } from "effect";
import { isSecretKey } from "./secretSealing.js";

/** Where the generated key that seals webhook secrets lives, readable only by the owner. */
export const secretKeyPath = (dataDir: string): string => join(dataDir, "webhook-secret.key");

/**
 * The keys that seal webhook signing secrets: the configured ones
 * (WEBHOOK_SECRET_KEY), or else the key under DATA_DIR, generated on first use
 * (mode 600, like the NATS passwords). An existing file is never replaced: the
 * secrets sealed with it would be lost, so a damaged one stops the start instead.
 */
export const loadSecretKeys = async (
  dataDir: string,
  configured: Option.Option<ReadonlyArray<string>>,
  attempt = 0,
): Promise<ReadonlyArray<string>> => {
  if (Option.isSome(configured)) return configured.value;
  const path = secretKeyPath(dataDir);
  const existing = await readFile(path, "utf8").then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    },
  );
  if (existing === "" && attempt < 20) {
    // Another process sharing DATA_DIR has just created the file and is writing it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    return loadSecretKeys(dataDir, configured, attempt + 1);
  }
  if (existing !== undefined) {
    if (!isSecretKey(existing))
      throw new Error(`${path} does not hold a webhook secret key (the base64 of 32 bytes); restore it.`);
    return [existing];
  }
  const created = randomBytes(32).toString("base64");
  await mkdir(dirname(path), { recursive: true });
  // `wx`: when two processes share DATA_DIR and start together, the second reads the first's key.
  const wrote = await writeFile(path, `${created}\n`, { mode: 0o600, flag: "wx" }).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return false;
      throw error;
    },
  );
  return wrote ? [created] : loadSecretKeys(dataDir, configured, attempt + 1);
};
