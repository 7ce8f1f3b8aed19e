import { randomBytes } from "node:crypto";
import type { KV } from "@nats-io/kv";
import { Context, Effect, Layer } from "effect";

/**
 * The key that signs `next_offset` cursors, shared by every API worker through
 * the `settings` bucket: created once (the first worker to start wins the
 * `create`), so a cursor issued by one worker is accepted by all.
 */
export class CursorSecret extends Context.Tag("app/balances/CursorSecret")<CursorSecret, Uint8Array>() {}

export const layer = (settings: KV): Layer.Layer<CursorSecret> =>
  Layer.effect(
    CursorSecret,
    Effect.promise(async () => {
      try {
        await settings.create("cursor_secret", randomBytes(32).toString("base64"));
      } catch {
        // Already there: another worker (or an earlier start) created it.
      }
      const entry = await settings.get("cursor_secret");
      if (entry === null) throw new Error("cursor secret missing from the settings bucket");
      return Buffer.from(entry.string(), "base64");
    }),
  );
