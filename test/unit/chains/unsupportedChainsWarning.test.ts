import { describe, expect, it } from "vitest";
import { unsupportedChainsWarning } from "../../../src/chains/unsupportedChainsWarning.js";

describe("unsupportedChainsWarning", () => {
  it("default: names the ids and links to the supported chains", () => {
    expect(unsupportedChainsWarning([9999], "Balances", "https://svc.example")).toEqual({
      code: "UNSUPPORTED_CHAIN_IDS",
      message: "Some requested chain_ids are not supported. Balances are returned only for supported chains.",
      chain_ids: [9999],
      docs_url: "https://svc.example/v1/evm/supported-chains",
    });
  });

  it("behavior: no unsupported ids, no warning", () => {
    expect(unsupportedChainsWarning([], "Balances", "https://svc.example")).toBeUndefined();
  });
});
