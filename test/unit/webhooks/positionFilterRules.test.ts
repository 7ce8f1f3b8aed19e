import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { decodeInput } from "../../../src/api/decodeInput.js";
import { createWebhook, POSITION_TYPES, updateWebhook } from "../../../src/contracts/Webhooks.js";
import { applyPatch } from "../../../src/webhooks/applyPatch.js";
import { makeHostAllowList } from "../../../src/webhooks/targets/hostAllowList.js";
import { validateCreate } from "../../../src/webhooks/validateCreate.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

const policy: Parameters<typeof validateCreate>[1] = {
  url: { allowHttp: false, allowedHosts: makeHostAllowList([]) },
  addresses: { perWebhook: 3, perCall: 3 },
  maxPerTeam: 10,
  chainIds: new Set([1]),
  protocols: new Set(["AaveV3", "UniswapV3", "CompoundV3"]),
};
const body = (fields: Record<string, unknown>) => ({
  name: "alerts",
  url: "https://x.example/",
  type: "positions",
  addresses: ["0x00000000000000000000000000000000000000aa"],
  conditions: { value_change_pct: 10 },
  ...fields,
});

/** The 400's message for a create body, from the schema or the rules after it; undefined when valid. */
const createError = (fields: Record<string, unknown>, given = policy) => {
  const decoded = decodeInput(createWebhook, { params: {}, query: {}, body: body(fields) });
  if (Either.isLeft(decoded)) return decoded.left.message;
  const valid = validateCreate(decoded.right.body, given);
  return Either.isLeft(valid) ? valid.left.message : undefined;
};
const created = (fields: Record<string, unknown>, given = policy) => {
  const decoded = decodeInput(createWebhook, { params: {}, query: {}, body: body(fields) });
  return Either.getOrThrow(validateCreate(Either.getOrThrow(decoded).body, given)).settings;
};

describe("value_change_pct and the position filters", () => {
  it("default: a threshold in percent, types in the endpoint's order, protocols in the registry's spelling", () => {
    expect(created({ conditions: { value_change_pct: 0.5 } }).conditions).toEqual({ value_change_pct: 0.5 });
    expect(created({ conditions: { value_change_pct: 1000 } }).conditions).toEqual({
      value_change_pct: 1000,
    });
    const settings = created({
      position_types: ["LendingV3", "Tokenized", "LendingV3"],
      protocols: ["aavev3", "COMPOUNDV3", "AaveV3"],
    });
    expect(settings.position_types).toEqual(["Tokenized", "LendingV3"]);
    expect(settings.protocols).toEqual(["AaveV3", "CompoundV3"]);
    expect(created({}).position_types).toBeNull();
    // Without a registry to check against, names are kept as given.
    const { protocols: _known, ...open } = policy;
    expect(created({ protocols: ["SomeFork", "SomeFork"] }, open).protocols).toEqual(["SomeFork"]);
  });

  it("error: a hostile or meaningless value_change_pct is a 400 naming it", () => {
    for (const pct of [0, -5, 1000.01, 1e308, "10", null, [10], { pct: 10 }, true])
      expect(createError({ conditions: { value_change_pct: pct } })).toContain(
        '"conditions.value_change_pct"',
      );
    expect(createError({ conditions: { value_change_pct: -1 } })).toContain("must be a positive number");
    expect(createError({ conditions: { value_change_pct: 2000 } })).toContain("at most 1000");
    expect(createError({ conditions: { value_change_pct: 2000 } })).toContain("10 means 10 %");
  });

  it("error: unknown position types are refused with the allowed ones listed; empty or huge lists too", () => {
    const unknown = createError({ position_types: ["Aave"] });
    expect(unknown).toContain('"position_types[0]"');
    for (const type of POSITION_TYPES) expect(unknown).toContain(`"${type}"`);
    expect(createError({ position_types: [] })).toContain("use null for every type");
    expect(createError({ position_types: Array.from({ length: 100_000 }, () => "Nft") })).toContain(
      "at most 50 item",
    );
    expect(createError({ position_types: "Nft" })).toContain('"position_types"');
    expect(createError({ position_types: [1] })).toContain('"position_types[0]"');
  });

  it("error: protocols must be names of the deployment's registry, with sane lengths and counts", () => {
    const unknown = createError({ protocols: ["Uniswap"] });
    expect(unknown).toContain('"protocols"');
    expect(unknown).toContain("AaveV3, CompoundV3, UniswapV3");
    expect(createError({ protocols: [] })).toContain("use null for every protocol");
    expect(createError({ protocols: ["x".repeat(65)] })).toContain('"protocols[0]"');
    expect(createError({ protocols: ["<script>"] })).toContain('"protocols[0]"');
    expect(createError({ protocols: [""] })).toContain('"protocols[0]"');
    expect(createError({ protocols: Array.from({ length: 51 }, () => "AaveV3") })).toContain(
      "at most 50 item",
    );
    expect(createError({ protocols: ["AaveV3"] }, { ...policy, protocols: new Set() })).toContain(
      "register no protocol",
    );
  });

  it("error: the filters and the condition belong to positions webhooks only", () => {
    for (const fields of [{ position_types: ["Nft"] }, { protocols: ["AaveV3"] }])
      expect(createError({ type: "balances", conditions: undefined, ...fields })).toContain(
        "only allowed on positions webhooks",
      );
  });

  it("behavior: a PATCH normalises what it sets, keeps the rest, and null clears", () => {
    const record = webhookRecord({
      type: "positions",
      conditions: { value_change_pct: 10 },
      position_types: ["Tokenized"],
      protocols: ["RetiredFork"],
    });
    const patch = (fields: Record<string, unknown>) => {
      const decoded = decodeInput(updateWebhook, {
        params: { webhookId: "01900000-0000-7000-8000-000000000001" },
        query: {},
        body: fields,
      });
      return applyPatch(record, Either.getOrThrow(decoded).body, policy, Date.now());
    };
    // A protocol the registry no longer names does not fail an unrelated change.
    expect(Either.getOrThrow(patch({ name: "renamed" }))?.protocols).toEqual(["RetiredFork"]);
    expect(Either.getOrThrow(patch({ protocols: ["uniswapv3"] }))?.protocols).toEqual(["UniswapV3"]);
    expect(Either.getOrThrow(patch({ position_types: null }))?.position_types).toBeNull();
    const refused = patch({ protocols: ["RetiredFork"] });
    expect(Either.isLeft(refused) && refused.left.message).toContain("not a protocol of this deployment");
    expect(Either.getOrThrow(patch({ position_types: ["Tokenized"] }))).toBeUndefined();
  });
});
