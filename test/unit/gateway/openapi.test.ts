import { Either, Schema } from "effect";
import { describe, expect, it } from "vitest";
import { ENDPOINTS } from "../../../src/contracts/endpoints.js";
import { Position } from "../../../src/contracts/Positions.js";
import { buildOpenApi } from "../../../src/gateway/openapi.js";

type Content = Record<string, { schema: unknown; example?: unknown }>;
type Operation = { operationId: string; responses: Record<string, { content?: Content }> };

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
      "query:block_number",
    ]);
    const positions = doc.paths["/beta/evm/defi/positions/{address}"]!.get!;
    expect(positions.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
      "path:address",
      "query:chain_ids",
      "query:block_number",
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

  it("behavior: servers come from PUBLIC_URL and the license is the project's", () => {
    const served = buildOpenApi(ENDPOINTS, "1.2.3", [], "https://wallet-data.acme.dev") as {
      servers: unknown;
      info: { license: unknown };
    };
    expect(served.servers).toEqual([
      { url: "https://wallet-data.acme.dev", description: expect.any(String) },
    ]);
    expect(served.info.license).toEqual({ name: "Apache-2.0", identifier: "Apache-2.0" });
  });

  it("behavior: every response has an example, and each success example decodes with its endpoint's schema", () => {
    const paths = doc.paths as unknown as Record<string, Record<string, Operation>>;
    for (const endpoint of ENDPOINTS) {
      const operation = paths[endpoint.path]![endpoint.method.toLowerCase()]!;
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const [type, media] of Object.entries(response.content ?? {}))
          expect(media.example, `${endpoint.operationId} ${status} ${type}`).toBeDefined();
      }
      const success = operation.responses["200"]!.content![endpoint.responseContentType]!.example;
      if (endpoint.responseContentType !== "application/json") {
        expect(success).toMatch(/^<svg/);
        continue;
      }
      const decoded = Schema.decodeUnknownEither(endpoint.response)(success, { onExcessProperty: "error" });
      expect(
        Either.isRight(decoded),
        `${endpoint.operationId}: ${String(Either.isLeft(decoded) && decoded.left)}`,
      ).toBe(true);
    }
  });

  it("behavior: positions are a oneOf of every position type, told apart by `type`", () => {
    const items = (
      doc.components.schemas.DefiPositionsResponse as {
        properties: { positions: { items: { oneOf: Array<{ $ref: string }>; discriminator: unknown } } };
      }
    ).properties.positions.items;
    const types = Position.members.map((member) => member.fields.type.literals[0] as string);
    expect(types).toHaveLength(10);
    expect(items.discriminator).toEqual({
      propertyName: "type",
      mapping: Object.fromEntries(
        types.map((type, i) => [type, `#/components/schemas/${Position.members[i]!.identifier}`]),
      ),
    });
    expect(items.oneOf).toHaveLength(10);
    for (const { $ref } of items.oneOf) expect(doc.components.schemas).toHaveProperty($ref.split("/").pop()!);
  });
});
