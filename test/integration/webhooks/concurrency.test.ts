import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
/** A webhook as the API answers it; a filter that is not set is absent. */
type Stored = { readonly id: string; readonly updated_at: string } & Partial<
  Record<(typeof FIELDS)[number], string>
>;
const fieldsOf = (hook: Stored) =>
  Object.fromEntries(FIELDS.map((field) => [field, hook[field] ?? null])) as Record<
    (typeof FIELDS)[number],
    string | null
  >;

const valueFor = (i: number) => {
  const field = FIELDS[i % FIELDS.length]!;
  const value =
    field === "name" ? `patch-${i}` : field === "url" ? `https://example.com/p/${i}` : addressOf(10_000 + i);
  return [field, value] as const;
};

describe("concurrent changes to one webhook", () => {
  it("behavior: a hundred concurrent PATCHes each land on top of the one before (no lost update)", async () => {
    const call = await env.as("race-team");
    const created = (await call("POST", WEBHOOKS, createBody())).json as Stored;

    // Each 200 answers the record as its own write stored it. The writes are read from the answers,
    // not from a watch of the bucket: the bucket keeps one revision per key, so a watcher that falls
    // behind on a busy machine skips revisions overwritten before it was sent them.
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const [field, value] = valueFor(i);
        return call("PATCH", `${WEBHOOKS}/${created.id}`, { [field]: value });
      }),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(100).fill(200));
    const writes = answers
      .map((r) => r.json as Stored)
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at));

    // Every PATCH was an effective change and `updated_at` moves on with each write, so the answers
    // order the writes. Each differs from the one before it in exactly one field: had a writer
    // worked from a stale record, its write would also have reverted the field changed in between.
    expect(new Set(writes.map((w) => w.updated_at)).size).toBe(100);
    const applied = new Set<string>();
    let previous = fieldsOf(created);
    for (const write of writes) {
      const next = fieldsOf(write);
      const changed = FIELDS.filter((field) => next[field] !== previous[field]);
      expect(changed).toHaveLength(1);
      applied.add(`${changed[0]}=${String(next[changed[0]!])}`);
      previous = next;
    }
    expect(applied).toEqual(new Set(Array.from({ length: 100 }, (_, i) => valueFor(i).join("="))));
    const final = (await call("GET", `${WEBHOOKS}/${created.id}`)).json as Stored;
    expect(fieldsOf(final)).toEqual(previous);
    expect(final.updated_at).toBe(writes[99]!.updated_at);
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
