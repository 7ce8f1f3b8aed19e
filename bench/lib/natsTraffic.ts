import { parseSamples } from "../../test/support/prometheusText.js";

/** A process's NATS messages so far, per connection (NATS user) and direction, from its `svc_nats_messages_total`. */
export const natsMessages = async (metricsUrl: string): Promise<Map<string, number>> => {
  const counts = new Map<string, number>();
  for (const s of parseSamples(await (await fetch(metricsUrl)).text())) {
    if (s.name !== "svc_nats_messages_total") continue;
    const key = `${s.labels.user} ${s.labels.direction}`;
    counts.set(key, (counts.get(key) ?? 0) + s.value);
  }
  return counts;
};

/** `after - before` per key, divided by `per`, the largest first, e.g. "ingest out 2.0, api in 1.5". */
export const messagesPer = (before: Map<string, number>, after: Map<string, number>, per: number) =>
  [...after]
    .map(([key, n]) => [key, (n - (before.get(key) ?? 0)) / per] as const)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([key, n]) => `${key} ${n.toFixed(1)}`)
    .join(", ");
