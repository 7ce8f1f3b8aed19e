import { KvWatchInclude } from "@nats-io/kv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeRecord, type WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import { eventually, type RunningService, startService } from "../../support/serviceHarness.js";
import {
  addressOf,
  createBody,
  startWebhookEnv,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";

let env: WebhookEnv;
let secondWorker: RunningService;

beforeAll(async () => {
  // These tests are about what lands, not how fast: on a busy machine a hundred requests at once
  // take longer than the gateway's default 10 s to get through two workers.
  env = await startWebhookEnv({ requestTimeoutMs: 60_000 });
  // A second API worker in the queue group, so concurrent requests race across processes too.
  secondWorker = await startService(env.nats, { chainsConfig: env.chainsConfig, roles: ["api"] });
}, 60_000);

afterAll(async () => {
  await secondWorker?.stop();
  await env?.stop();
});

/** The four fields the PATCHes below take turns at; each value is unique to one PATCH. */
const FIELDS = ["name", "url", "counterparty", "token_address"] as const;
const valueFor = (i: number) => {
  const field = FIELDS[i % FIELDS.length]!;
  const value =
    field === "name" ? `patch-${i}` : field === "url" ? `https://example.com/p/${i}` : addressOf(10_000 + i);
  return [field, value] as const;
};

describe("concurrent changes to one webhook", () => {
  it("behavior: a hundred concurrent PATCHes each land on top of the one before (no lost update)", async () => {
    const call = await env.as("race-team");
    const hook = (await call("POST", WEBHOOKS, createBody())).json as { id: string };
    const { webhooks } = await env.buckets();
    const watch = await webhooks.watch({ key: `hook.${hook.id}`, include: KvWatchInclude.UpdatesOnly });
    const writes: Array<WebhookRecord> = [];
    const watching = (async () => {
      for await (const entry of watch) {
        if (entry.operation === "PUT") writes.push(decodeRecord(entry.string()));
        if (writes.length === 100) break;
      }
    })();

    const statuses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const [field, value] = valueFor(i);
        return call("PATCH", `${WEBHOOKS}/${hook.id}`, { [field]: value }).then((r) => r.status);
      }),
    );
    expect(statuses).toEqual(Array(100).fill(200));
    // Bounded: with a lost update fewer than 100 writes arrive and the check below says so.
    await Promise.race([watching, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    watch.stop();

    // Every PATCH was an effective change, so there are exactly 100 writes, and each write
    // differs from the one before it in exactly one field: had a writer worked from a stale
    // record, its write would also have reverted the field changed in between.
    expect(writes).toHaveLength(100);
    const applied = new Set<string>();
    let previous: Pick<WebhookRecord, (typeof FIELDS)[number]> = {
      name: "wallet watcher",
      url: "https://example.com/hooks",
      counterparty: null,
      token_address: null,
    };
    for (const write of writes) {
      const changed = FIELDS.filter((field) => write[field] !== previous[field]);
      expect(changed).toHaveLength(1);
      applied.add(`${changed[0]}=${String(write[changed[0]!])}`);
      previous = write;
    }
    expect(applied).toEqual(new Set(Array.from({ length: 100 }, (_, i) => valueFor(i).join("="))));
    const final = (await call("GET", `${WEBHOOKS}/${hook.id}`)).json;
    const last = writes[99]!;
    expect(final).toMatchObject({ name: last.name, url: last.url, counterparty: last.counterparty });
    const stamps = writes.map((w) => Date.parse(w.updated_at));
    expect(stamps.every((t, i) => i === 0 || t > stamps[i - 1]!)).toBe(true);
  });

  it("behavior: a hundred concurrent address PATCHes (50 removals, 50 additions) all land, in what notifiers match too", async () => {
    const call = await env.as("race-addresses-team");
    const initial = Array.from({ length: 50 }, (_, i) => addressOf(20_000 + i));
    const added = Array.from({ length: 50 }, (_, i) => addressOf(30_000 + i));
    const hook = (await call("POST", WEBHOOKS, createBody({ addresses: initial }))).json as { id: string };
    const path = `${WEBHOOKS}/${hook.id}/addresses`;
    const statuses = await Promise.all([
      ...initial.map((a) => call("PATCH", path, { remove_addresses: [a] }).then((r) => r.status)),
      ...added.map((a) => call("PATCH", path, { add_addresses: [a] }).then((r) => r.status)),
    ]);
    // A removal may find itself about to empty the list before the additions land: that is a 400 by rule.
    expect(statuses.every((s) => s === 200 || s === 400)).toBe(true);
    const failed = initial.filter((_, i) => statuses[i] === 400);
    const list = (await call("GET", `${path}?limit=100`)).json.addresses as ReadonlyArray<string>;
    expect(list).toEqual([...failed, ...added].sort());
    // What a notifier matches ends as the list does, however the changes raced.
    const book = await env.addressBook();
    const watched = (address: string) => book.webhooksFor(address).length > 0;
    await eventually(
      async () => [...initial, ...added].every((address) => watched(address) === list.includes(address)),
      10_000,
      "the address book to hold the final list",
    );
    for (const address of [...initial, ...added])
      expect(book.webhooksFor(address), address).toEqual(list.includes(address) ? [hook.id] : []);
  });
});
