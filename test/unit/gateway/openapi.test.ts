import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../../src/contracts/endpoints.js";
import { buildOpenApi } from "../../../src/gateway/openapi.js";

describe("OpenAPI document", () => {
  const doc = buildOpenApi(ENDPOINTS, "1.2.3") as {
    paths: Record<
      string,
      Record<
        string,
        { operationId: string; parameters: Array<{ name: string; in: string }>; security?: unknown }
      >
    >;
    components: { securitySchemes: unknown; schemas: Record<string, unknown> };
  };

  it("default: one operation per endpoint with the API key scheme", () => {
    const operations = Object.values(doc.paths).flatMap((methods) => Object.values(methods));
    expect(operations.map((o) => o.operationId).sort()).toEqual(ENDPOINTS.map((e) => e.operationId).sort());
    expect(doc.components.securitySchemes).toEqual({
      apiKey: { type: "apiKey", in: "header", name: "X-Svc-Api-Key" },
    });
  });

  it("behavior: path and query parameters come from the schemas; public endpoints need no key", () => {
    const balances = doc.paths["/v1/evm/balances/{address}"]!.get!;
    expect(balances.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
      "path:address",
      "query:chain_ids",
      "query:filters",
      "query:metadata",
      "query:exclude_spam_tokens",
      "query:historical_prices",
      "query:offset",
      "query:limit",
    ]);
    expect(doc.paths["/v1/evm/supported-chains"]!.get!.security).toEqual([]);
    expect(doc.components.schemas).toHaveProperty("BalanceEntry");
    expect(doc.components.schemas).toHaveProperty("Webhook");
  });

  it("behavior: headers named by API_KEY_HEADERS are alternative API key schemes", () => {
    const withAlternatives = buildOpenApi(ENDPOINTS, "1.2.3", ["x-api-key"]) as {
      security: unknown;
      components: { securitySchemes: unknown };
    };
    expect(withAlternatives.security).toEqual([{ apiKey: [] }, { apiKeyAlt1: [] }]);
    expect(withAlternatives.components.securitySchemes).toEqual({
      apiKey: { type: "apiKey", in: "header", name: "X-Svc-Api-Key" },
      apiKeyAlt1: { type: "apiKey", in: "header", name: "x-api-key" },
    });
  });
});
