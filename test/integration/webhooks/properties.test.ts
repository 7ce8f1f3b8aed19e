import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addressOf,
  type Caller,
  createBody,
  startWebhookEnv,
  WEBHOOKS,
  type WebhookEnv,
} from "../../support/webhookEnv.js";

let env: WebhookEnv;
let call: Caller;

beforeAll(async () => {
  env = await startWebhookEnv({
    webhookMaxPerTeam: 1_000,
    webhookMaxAddresses: 50,
    webhookMaxAddressesPerCall: 20,
  });
  call = await env.as("property-team");
}, 60_000);

afterAll(async () => {
  await env?.stop();
});

/** Anything JSON can carry, small. */
const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 30 }),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

const address = fc.oneof(
  fc.integer({ min: 0, max: 1_000 }).map(addressOf),
  fc.constant(`0x${"Ab".repeat(20)}`),
  fc.string({ maxLength: 44 }),
);

const url = fc.oneof(
  fc.webUrl({ validSchemes: ["https"] }),
  fc.webUrl({ validSchemes: ["http", "https", "ftp"], withQueryParameters: true, withFragments: true }),
  fc.ipV4().map((ip) => `https://${ip}/hook`),
  fc.ipV6().map((ip) => `https://[${ip}]/hook`),
  fc.constantFrom(
    "https://localhost/",
    "https://[::ffff:10.0.0.1]/",
    "https://169.254.169.254/",
    "https://x",
  ),
  fc.string({ maxLength: 40 }),
);

/** Values of the right type and domain (they may still break a cross-field rule). */
const validValues = {
  name: fc.string({ minLength: 1, maxLength: 50 }),
  url: fc.webUrl({ validSchemes: ["https"] }),
  type: fc.constantFrom("transactions", "activities", "balances"),
  addresses: fc.array(fc.integer({ min: 0, max: 1_000 }).map(addressOf), { minLength: 1, maxLength: 5 }),
  chain_ids: fc.oneof(fc.constant(null), fc.array(fc.constantFrom(1, 8453), { minLength: 1, maxLength: 2 })),
  // Filters are null half the time, so that bodies often satisfy the type rules too.
  transaction_type: fc.option(fc.constantFrom("sender", "receiver"), { freq: 2 }),
  counterparty: fc.option(fc.integer({ min: 0, max: 1_000 }).map(addressOf), { freq: 2 }),
  activity_type: fc.option(fc.constantFrom("approve", "mint", "burn", "receive", "send", "swap", "call"), {
    freq: 2,
  }),
  asset_type: fc.option(fc.constantFrom("native", "erc20", "erc721", "erc1155"), { freq: 2 }),
  token_address: fc.option(fc.integer({ min: 0, max: 1_000 }).map(addressOf), { freq: 2 }),
  active: fc.boolean(),
  extra: fc.constant(undefined),
};

/** Anything: a valid value, a malformed one, or junk of another type. */
const anyValues = {
  name: fc.oneof(validValues.name, fc.string({ maxLength: 220 }), junk),
  url: fc.oneof(url, junk),
  type: fc.oneof(validValues.type, junk),
  addresses: fc.oneof(fc.array(address, { maxLength: 25 }), junk),
  chain_ids: fc.oneof(validValues.chain_ids, fc.array(fc.integer(), { maxLength: 4 }), junk),
  transaction_type: fc.oneof(validValues.transaction_type, junk),
  counterparty: fc.oneof(address, fc.constant(null), junk),
  activity_type: fc.oneof(validValues.activity_type, junk),
  asset_type: fc.oneof(validValues.asset_type, junk),
  token_address: fc.oneof(address, fc.constant(null), junk),
  active: fc.oneof(fc.boolean(), fc.constant(null), junk),
  extra: junk,
};

type Field = keyof typeof anyValues;

/** A body with a random subset of the fields, drawn from `values`. */
const body = (keys: ReadonlyArray<Field>, values: Record<Field, fc.Arbitrary<unknown>>) =>
  fc
    .record(Object.fromEntries(keys.map((k) => [k, values[k]])), { requiredKeys: [] })
    .map((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)));

/** Half the bodies well-typed (so rules beyond types get exercised), half anything. */
const bodies = (keys: ReadonlyArray<Field>) => fc.oneof(body(keys, validValues), body(keys, anyValues));

const CREATE_KEYS = [
  "name",
  "url",
  "type",
  "addresses",
  "chain_ids",
  "transaction_type",
  "counterparty",
  "activity_type",
  "asset_type",
  "token_address",
  "extra",
] as const;
const PATCH_KEYS = [...CREATE_KEYS.filter((k) => k !== "type" && k !== "addresses"), "active"] as const;

describe("random webhook bodies", () => {
  it("property: create never answers 5xx; a 200 is a well-formed webhook; a 4xx says why", async () => {
    const seen = { accepted: 0, rejected: 0 };
    await fc.assert(
      fc.asyncProperty(fc.boolean(), bodies(CREATE_KEYS), async (overBase, random) => {
        const sent = overBase ? { ...createBody(), ...random } : random;
        const res = await call("POST", WEBHOOKS, sent);
        expect(res.status).toBeLessThan(500);
        if (res.status === 200) {
          expect(res.json).toMatchObject({
            active: true,
            id: expect.any(String),
            secret: expect.stringMatching(/^whsec_/),
          });
          expect((await call("DELETE", `${WEBHOOKS}/${res.json.id as string}`)).status).toBe(200);
          seen.accepted++;
        } else {
          expect(res.status).toBe(400);
          expect(res.json).toMatchObject({ error: expect.any(String), code: expect.any(String) });
          seen.rejected++;
        }
      }),
      { numRuns: 200 },
    );
    // Both outcomes are exercised, so the property is not vacuous.
    expect(seen.accepted).toBeGreaterThan(5);
    expect(seen.rejected).toBeGreaterThan(5);
  });

  it("property: PATCH never answers 5xx and a rejected PATCH changes nothing", async () => {
    const hooks = await Promise.all(
      (["transactions", "activities", "balances"] as const).map(
        async (type) => (await call("POST", WEBHOOKS, createBody({ type }))).json.id as string,
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...hooks), bodies(PATCH_KEYS), async (id, patch) => {
        const before = (await call("GET", `${WEBHOOKS}/${id}`)).json;
        const res = await call("PATCH", `${WEBHOOKS}/${id}`, patch);
        expect(res.status).toBeLessThan(500);
        const after = (await call("GET", `${WEBHOOKS}/${id}`)).json;
        if (res.status === 200) {
          expect(after).toEqual(res.json);
          if (after.updated_at === before.updated_at) expect(after).toEqual(before);
        } else {
          expect(res.status).toBe(400);
          expect(after).toEqual(before);
        }
      }),
      { numRuns: 200 },
    );
  });
});
