import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Effect } from "effect";
import { hashApiKey, isWellFormedApiKey } from "../api/keys/apiKeyFormat.js";
import { createKey, findKeyByHash, type KeyBuckets } from "../api/keys/KeyStore.js";
import { reasonOf } from "../lib/errorReason.js";
import { DataDirUnavailable } from "../storage/Level.js";

const unwritable = (path: string, error: unknown) =>
  new DataDirUnavailable({
    message: `The demo API key cannot be written to ${path} (${reasonOf(error)}): check DATA_DIR and its permissions.`,
  });

/**
 * Makes sure the devnet manifest carries a working API key of team `demo`. The
 * key is created through the same store the admin CLI uses, and remembered under
 * DATA_DIR so restarts keep the same key while it stays valid.
 */
export const provisionDemoKey = (buckets: KeyBuckets, dataDir: string) =>
  Effect.gen(function* () {
    const path = join(dataDir, "devnet", "demo-api-key");
    const remembered = yield* Effect.promise(() =>
      readFile(path, "utf8").then(
        (s) => s.trim(),
        () => "",
      ),
    );
    const existing = isWellFormedApiKey(remembered)
      ? yield* findKeyByHash(buckets, hashApiKey(remembered))
      : undefined;
    let key = remembered;
    if (existing === undefined || existing.revoked_at !== null) {
      key = (yield* createKey(buckets, "demo")).key;
      yield* Effect.tryPromise({
        try: () => writeFile(path, key, { mode: 0o600 }),
        catch: (error) => unwritable(path, error),
      });
    }
    const { writeDevnetApiKey } = yield* Effect.promise(() => import("../devnet/Devnet.js"));
    yield* Effect.tryPromise({
      try: () => writeDevnetApiKey(dataDir, key),
      catch: (error) => unwritable(join(dataDir, "devnet"), error),
    });
    return key;
  });
