import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { applyAddressChanges, normaliseAddresses } from "../../../src/webhooks/addressList.js";
import { applyPatch, nextUpdatedAt } from "../../../src/webhooks/applyPatch.js";
import { decodeCursor, encodeCursor, pageOf, parseLimit } from "../../../src/webhooks/paging.js";
import { freshSecrets, rotateSecrets, signingSecrets } from "../../../src/webhooks/secrets/signingSecret.js";
import { makeHostAllowList } from "../../../src/webhooks/targets/hostAllowList.js";
import { validateCreate } from "../../../src/webhooks/validateCreate.js";
import { WebhookRecord } from "../../../src/webhooks/WebhookRecord.js";
import { newWebhookId } from "../../../src/webhooks/webhookId.js";

const policy = {
  url: { allowHttp: false, allowedHosts: makeHostAllowList([]) },
  addresses: { perWebhook: 3, perCall: 3 },
  maxPerTeam: 10,
  chainIds: new Set([1, 10]),
};
const a = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;

const stored = new WebhookRecord({
  id: newWebhookId(0),
  team_id: "TEAM",
  name: "hook",
  type: "transactions",
  url: "https://example.com/",
  active: true,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  chain_ids: [1],
  transaction_type: "sender",
  counterparty: null,
  activity_type: null,
  asset_type: null,
  token_address: null,
  secrets: freshSecrets(),
});

const errorOf = <A, E extends { message: string }>(result: Either.Either<A, E>) =>
  Either.isLeft(result) ? result.left.message : undefined;

describe("webhook rules", () => {
  it("behavior: create normalises addresses and chain ids", () => {
    const result = validateCreate(
      {
        name: " n ",
        url: "https://x.io/",
        type: "balances",
        addresses: [a(2), a(1), a(2)],
        chain_ids: [10, 1, 10],
      },
      policy,
    );
    expect(Either.getOrThrow(result)).toMatchObject({
      addresses: [a(1), a(2)],
      settings: { name: "n", chain_ids: [1, 10], active: true, activity_type: null },
    });
  });

  it("error: create caps and chain support", () => {
    const base = { name: "n", url: "https://x.io/", type: "balances" as const };
    expect(errorOf(validateCreate({ ...base, addresses: [a(1), a(2), a(3), a(3)] }, policy))).toMatch(
      /at most 3 .* per request/,
    );
    expect(errorOf(validateCreate({ ...base, addresses: [a(1)], chain_ids: [8453] }, policy))).toMatch(
      /"chain_ids" contains 8453.*supported: 1, 10/,
    );
    expect(errorOf(validateCreate({ ...base, addresses: [a(1)], activity_type: "swap" }, policy))).toBe(
      'body field "activity_type" is only allowed on activities webhooks: webhook type balances cannot have activity_type.',
    );
  });

  it("behavior: PATCH applies present fields only, null clears filters, no-ops return undefined", () => {
    expect(Either.getOrThrow(applyPatch(stored, {}, policy, 5))).toBeUndefined();
    expect(
      Either.getOrThrow(applyPatch(stored, { name: null, transaction_type: "sender" }, policy, 5)),
    ).toBeUndefined();
    const next = Either.getOrThrow(
      applyPatch(
        stored,
        { transaction_type: null, chain_ids: null },
        policy,
        Date.parse("2026-02-01T00:00:00Z"),
      ),
    );
    expect(next).toMatchObject({
      transaction_type: null,
      chain_ids: null,
      name: "hook",
      updated_at: "2026-02-01T00:00:00.000Z",
    });
    expect(errorOf(applyPatch(stored, { activity_type: "mint" }, policy, 5))).toMatch(/"activity_type"/);
    expect(errorOf(applyPatch(stored, { url: "https://[::1]/" }, policy, 5))).toMatch(
      /"url" must not target a loopback/,
    );
  });

  it("behavior: updated_at always moves forward, even within one millisecond or with a clock behind", () => {
    expect(nextUpdatedAt("2026-01-01T00:00:00.000Z", Date.parse("2026-01-01T00:00:00.000Z"))).toBe(
      "2026-01-01T00:00:00.001Z",
    );
    expect(nextUpdatedAt("2026-01-01T00:00:00.000Z", 0)).toBe("2026-01-01T00:00:00.001Z");
  });

  it("behavior: address changes remove first, then add; results sorted and unique", () => {
    expect(applyAddressChanges([a(1), a(2)], [a(2), a(3)], [a(2)])).toEqual([a(1), a(2), a(3)]);
    expect(normaliseAddresses([`0x${"AB".repeat(20)}`, `0x${"ab".repeat(20)}`])).toEqual([
      `0x${"ab".repeat(20)}`,
    ]);
  });

  it("behavior: cursors round-trip and pages split by key", () => {
    const keys = ["a", "b", "c", "d", "e"];
    const first = pageOf(keys, (k) => k, undefined, 2);
    expect(first.items).toEqual(["a", "b"]);
    const after = decodeCursor(first.next, () => true);
    expect(after).toBe("b");
    expect(pageOf(keys, (k) => k, "b", 2).items).toEqual(["c", "d"]);
    expect(pageOf(keys, (k) => k, "d", 2)).toEqual({ items: ["e"], next: undefined });
    expect(pageOf(keys, (k) => k, "bb", 10).items).toEqual(["c", "d", "e"]);
    expect(decodeCursor(encodeCursor("x"), (k) => k === "y")).toMatchObject({
      code: "INVALID_QUERY_PARAMETER",
    });
    expect(parseLimit(undefined)).toBe(100);
    expect(parseLimit("500")).toBe(100);
    expect(parseLimit("0")).toMatchObject({ code: "INVALID_QUERY_PARAMETER" });
  });

  it("behavior: a rotated secret signs alongside the new one for 24 hours, then not", () => {
    const rotated = rotateSecrets({ current: "whsec_old", previous: null }, "whsec_new", 0);
    expect(rotated.previous?.expires_at).toBe("1970-01-02T00:00:00.000Z");
    expect(signingSecrets(rotated, 24 * 3600_000 - 1)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets(rotated, 24 * 3600_000)).toEqual(["whsec_new"]);
    const twice = rotateSecrets(rotated, "whsec_newest", 1_000);
    expect(twice.previous?.secret).toBe("whsec_new");
  });

  it("default: webhook ids are time-ordered UUIDv7", () => {
    const early = newWebhookId(1_000);
    const late = newWebhookId(2_000);
    expect(early).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(early < late).toBe(true);
  });
});
