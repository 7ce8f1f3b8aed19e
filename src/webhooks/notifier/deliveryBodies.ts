import { createHash } from "node:crypto";
import type { WebhookType } from "../../contracts/Webhooks.js";

/** Largest body sent, in bytes (256 KiB): more events than fit are split into several deliveries. */
export const MAX_BODY_BYTES = 256 * 1024;

/** The array a delivery body carries, per webhook type (compatible API section 8.4). */
export const BODY_KEY: Record<typeof WebhookType.Type, string> = {
  transactions: "transactions",
  activities: "activities",
  balances: "balance_changes",
  positions: "position_alerts",
};

/**
 * The `webhook-id` of one delivery: `msg_` and 32 hex digits of a hash of the
 * webhook, chain, block hash, whether it retracts (reorg), the part number and
 * the block's appearance (`appearanceOf`). Deterministic, so a block message
 * processed again (by this node or another) yields the same id, and no `.` ever
 * appears in it (Standard Webhooks forbids one). A block that a reorg removed and
 * a later one brought back (a load-balanced node flipping between branches) is a
 * new appearance: its events are new deliveries, which a receiver that
 * de-duplicates on the id must not drop. Blocks recorded before appearances were
 * kept have none, and keep the ids they were first delivered under.
 */
export const deliveryId = (
  webhookId: string,
  chainId: number,
  blockHash: string,
  removed: boolean,
  part: number,
  appearance: string | undefined,
): string =>
  `msg_${createHash("sha256")
    .update(
      `${webhookId}|${chainId}|${blockHash}|${removed ? "removed" : "added"}|${part}${appearance === undefined ? "" : `|${appearance}`}`,
    )
    .digest("hex")
    .slice(0, 32)}`;

/** An element too large for any body on its own loses its bulky fields (calldata, logs) and says so. */
const shrink = (event: unknown): unknown =>
  typeof event === "object" && event !== null
    ? {
        ...event,
        ...("data" in event ? { data: "0x" } : {}),
        ...("logs" in event ? { logs: [] } : {}),
        truncated: true,
      }
    : event;

/**
 * Packs events, in order, into JSON bodies `{"<key>": [...]}` of at most
 * `maxBytes` each. Returns each body with its event count.
 */
export const splitBodies = (
  type: typeof WebhookType.Type,
  events: ReadonlyArray<unknown>,
  maxBytes = MAX_BODY_BYTES,
): ReadonlyArray<{ readonly body: string; readonly events: number }> => {
  const key = BODY_KEY[type];
  const overhead = Buffer.byteLength(`{"${key}":[]}`);
  const out: Array<{ body: string; events: number }> = [];
  let parts: Array<string> = [];
  let size = overhead;
  const flush = () => {
    if (parts.length === 0) return;
    out.push({ body: `{"${key}":[${parts.join(",")}]}`, events: parts.length });
    parts = [];
    size = overhead;
  };
  for (const event of events) {
    let json = JSON.stringify(event);
    if (overhead + Buffer.byteLength(json) > maxBytes) json = JSON.stringify(shrink(event));
    const bytes = Buffer.byteLength(json) + (parts.length === 0 ? 0 : 1);
    if (size + bytes > maxBytes) flush();
    parts.push(json);
    size += Buffer.byteLength(json) + (parts.length === 1 ? 0 : 1);
  }
  flush();
  return out;
};
