import { randomBytes } from "node:crypto";
import type { KV } from "@nats-io/kv";
import { Context, type Effect, Layer } from "effect";
import { leaderReads } from "../nats/leaderReads.js";
import { retrying } from "../runtime/retrying.js";

/**
 * The key that signs `next_offset` cursors, shared by every API worker through
 * the `settings` bucket: created once (the first worker to start wins the
 * `create`), so a cursor issued by one worker is accepted by all.
 */
export class CursorSecret extends Context.Tag("app/balances/CursorSecret")<CursorSecret, Uint8Array>() {}

const KEY = "cursor_secret";

/** The two bucket calls the secret needs; `readLatest` must see every acknowledged write. */
export interface SecretStore {
  /** Stores `value` unless the key holds one already (then rejects). */
  readonly create: (value: string) => Promise<unknown>;
  /** The stored value, or `null` when there is none. */
  readonly readLatest: () => Promise<string | null>;
}

/**
 * Creates the secret, or reads the one another worker created first. Workers started together race
 * for the `create`; a loser reads the winner's value from the stream's leader, because a replica
 * answering a direct get may not hold that write yet (and a read that found nothing then made a
 * second API process exit at start). Anything else that fails (the bucket's leader being elected,
 * a timeout) is tried again with a warning, from 0.2 s doubling up to every 5 s.
 */
export const loadCursorSecret = (store: SecretStore): Effect.Effect<Uint8Array> =>
  retrying(
    "creating or reading the cursor secret",
    async () => {
      const mine = randomBytes(32).toString("base64");
      const created = await store.create(mine).then(
        () => true,
        () => false,
      );
      const stored = created ? mine : await store.readLatest();
      if (stored === null) throw new Error("another worker's create was refused, yet nothing is stored");
      return Buffer.from(stored, "base64");
    },
    "5 seconds",
  );

export const layer = (settings: KV): Layer.Layer<CursorSecret> => {
  const leader = leaderReads(settings);
  return Layer.effect(
    CursorSecret,
    loadCursorSecret({
      create: (value) => settings.create(KEY, value),
      readLatest: async () => {
        const entry = await leader.get(KEY);
        return entry === null || entry.operation !== "PUT" ? null : entry.string();
      },
    }),
  );
};
