import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * What a `next_offset` cursor pins: the wallet and query it belongs to, the
 * block each chain was read at (later pages read the same blocks, so the union
 * of pages is one consistent list however the chain moves), and the sort key of
 * the last entry returned.
 */
export interface CursorState {
  readonly wallet: string;
  /** Fingerprint of the query's chains and filters. */
  readonly query: string;
  readonly blocks: ReadonlyArray<readonly [chainId: number, block: number]>;
  readonly after: readonly [value: number | null, chainId: number, address: string];
  /** When the first page was served (unix seconds): cursors expire after CURSOR_TTL_SECONDS. */
  readonly issued: number;
}

/** How long paging through one snapshot may take; older cursors are stale (400). */
export const CURSOR_TTL_SECONDS = 30 * 60;

const VERSION = 1;

const sign = (secret: Uint8Array, payload: string) =>
  createHmac("sha256", secret).update(payload).digest("base64url").slice(0, 22);

/** An opaque cursor: base64url JSON plus a truncated HMAC, so only cursors we issued are accepted. */
export const encodeCursor = (secret: Uint8Array, state: CursorState): string => {
  const payload = Buffer.from(
    JSON.stringify([VERSION, state.wallet, state.query, state.blocks, state.after, state.issued]),
  ).toString("base64url");
  return `${payload}.${sign(secret, payload)}`;
};

/** The state of a cursor we issued, or `undefined` for anything else (forged, truncated, other version). */
export const decodeCursor = (secret: Uint8Array, cursor: string): CursorState | undefined => {
  if (cursor.length > 4096) return undefined;
  const dot = cursor.lastIndexOf(".");
  if (dot <= 0) return undefined;
  const payload = cursor.slice(0, dot);
  const given = Buffer.from(cursor.slice(dot + 1));
  const expected = Buffer.from(sign(secret, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const [version, wallet, query, blocks, after, issued] = JSON.parse(
      Buffer.from(payload, "base64url").toString("utf8"),
    ) as [number, string, string, Array<[number, number]>, [number | null, number, string], number];
    if (version !== VERSION) return undefined;
    return { wallet, query, blocks, after, issued };
  } catch {
    return undefined;
  }
};
