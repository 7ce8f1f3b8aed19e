import type { DeliveryStats, WebhookPage } from "./AdminClient.js";
import { lastAttempt } from "./deliveryText.js";
import type { Column } from "./layout.js";

/** Columns of the Webhooks list: who, what, state, then delivery statistics. */
export const WEBHOOK_COLUMNS: ReadonlyArray<Column> = [
  { header: "TEAM", shrink: true, min: 6 },
  { header: "NAME", shrink: true, min: 8 },
  { header: "TYPE" },
  { header: "ON" },
  { header: "ADDR", align: "right" },
  { header: "OK", align: "right" },
  { header: "FAIL", align: "right" },
  { header: "RETRY", align: "right" },
  { header: "DEAD", align: "right" },
  { header: "LAST", shrink: true, min: 4 },
];

const TYPE_LABEL = { transactions: "txs", activities: "acts", balances: "bals", positions: "pos" } as const;

/** One webhook as list cells; delivery cells are `-` while delivery statistics are unavailable. */
export const webhookCells = (
  webhook: WebhookPage["webhooks"][number],
  stats: DeliveryStats | undefined,
): ReadonlyArray<string> => [
  webhook.team_name,
  webhook.name,
  TYPE_LABEL[webhook.type],
  webhook.active ? "yes" : "no",
  String(webhook.address_count),
  ...(stats === undefined
    ? ["-", "-", "-", "-", "-"]
    : [
        String(stats.delivered),
        String(stats.failed),
        String(stats.retrying),
        String(stats.dead_lettered),
        lastAttempt(stats),
      ]),
];
