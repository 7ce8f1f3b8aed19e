import { describe, expect, it } from "vitest";
import type { WebhookDetail } from "../../../tui/AdminClient.js";
import { filterSummary } from "../../../tui/filterSummary.js";

const unset = {
  chain_ids: null,
  transaction_type: null,
  counterparty: null,
  activity_type: null,
  asset_type: null,
  token_address: null,
  conditions: null,
  position_types: null,
  protocols: null,
};
const summary = (filters: Record<string, unknown>) =>
  filterSummary({ filters: { ...unset, ...filters } } as unknown as WebhookDetail["webhook"]);

describe("the webhook screen's filter line", () => {
  it("default: a positions webhook's conditions, position types and protocols, in that order", () => {
    expect(
      summary({
        chain_ids: [8453],
        conditions: { health_factor_below: 1.1, value_change_pct: 7.5 },
        position_types: ["Tokenized", "LendingV3"],
        protocols: ["AaveV3", "CompoundV3"],
      }),
    ).toBe(
      "chains 8453 · health factor below 1.1 · value change 7.5% · types Tokenized,LendingV3 · protocols AaveV3,CompoundV3",
    );
  });

  it("edge: unset filters add nothing", () => {
    expect(summary({})).toBe("all chains");
  });
});
