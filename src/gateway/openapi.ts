import { JSONSchema, Schema } from "effect";
import { ErrorResponse } from "../contracts/Common.js";
import type { AnyEndpoint } from "../contracts/Endpoint.js";
import { ERROR_EXAMPLES, RESPONSE_EXAMPLES } from "./openapiExamples.js";

type Json = Record<string, unknown>;

const ERROR_RESPONSES: Record<string, string> = {
  "400":
    "Invalid request: the body says which parameter or field, what it accepts (every allowed value for a fixed set), and why. Bodies nested more than 32 levels deep are `JSON_TOO_DEEP`.",
  "401": "Missing, malformed, unknown or revoked API key.",
  "402": "The team's monthly compute-unit quota is used up.",
  "404": "Not found.",
  "413": "Request body over 1 MiB.",
  "415": "Request body that is not `application/json`.",
  "429": "Rate limit exceeded; see Retry-After.",
  "503": "No worker can answer, or the endpoint is currently unavailable.",
  "504": "No worker answered in time.",
};

/**
 * Positions are a union told apart by `type`: a `oneOf` with a discriminator
 * lets generated clients narrow each entry to its type's schema (an `anyOf`
 * without one leaves them a loose union).
 */
const discriminatePositions = (definitions: Record<string, JSONSchema.JsonSchema7>) => {
  const response = definitions.DefiPositionsResponse as Json | undefined;
  const items = ((response?.properties as Record<string, Json> | undefined)?.positions as Json | undefined)
    ?.items as Json | undefined;
  const variants = items?.anyOf as ReadonlyArray<{ $ref: string }> | undefined;
  if (items === undefined || variants === undefined) return;
  const mapping: Record<string, string> = {};
  for (const { $ref } of variants) {
    const schema = definitions[$ref.split("/").pop()!] as Json | undefined;
    const type = (
      (schema?.properties as Record<string, Json> | undefined)?.type?.enum as
        | ReadonlyArray<string>
        | undefined
    )?.[0];
    if (type === undefined) return;
    mapping[type] = $ref;
  }
  delete items.anyOf;
  items.oneOf = variants;
  items.discriminator = { propertyName: "type", mapping };
};

/**
 * The OpenAPI 3.1 document of every endpoint, generated from the same schemas the
 * workers decode with, so it cannot drift from what the service accepts.
 * `apiKeyHeaders` (API_KEY_HEADERS) become alternative security schemes.
 */
export const buildOpenApi = (
  endpoints: ReadonlyArray<AnyEndpoint>,
  version: string,
  apiKeyHeaders: ReadonlyArray<string> = [],
  /** PUBLIC_URL: the server clients call, so generated clients and try-it consoles aim at it. */
  publicUrl = "http://localhost:8080",
): Json => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {};
  const toJson = (schema: Schema.Schema.AnyNoContext, side: "encoded" | "type") =>
    JSONSchema.fromAST(side === "encoded" ? Schema.encodedBoundSchema(schema).ast : schema.ast, {
      definitions,
      definitionPath: "#/components/schemas/",
      target: "openApi3.1",
    }) as unknown as Json;

  const parameters = (schema: Schema.Schema.AnyNoContext, location: "path" | "query") => {
    const object = toJson(schema, "encoded");
    const properties = (object.properties ?? {}) as Record<string, Json>;
    const required = new Set((object.required ?? []) as ReadonlyArray<string>);
    return Object.entries(properties).map(([name, property]) => ({
      name,
      in: location,
      required: location === "path" || required.has(name),
      ...(typeof property.description === "string" ? { description: property.description } : {}),
      schema: property,
    }));
  };

  const errorSchema = toJson(ErrorResponse, "type");
  const paths: Record<string, Record<string, Json>> = {};
  for (const endpoint of endpoints) {
    const operation: Json = {
      operationId: endpoint.operationId,
      tags: [endpoint.group],
      summary: endpoint.summary,
      ...(endpoint.description === undefined ? {} : { description: endpoint.description }),
      parameters: [...parameters(endpoint.params, "path"), ...parameters(endpoint.query, "query")],
      ...(endpoint.body === undefined
        ? {}
        : {
            requestBody: {
              required: true,
              content: { "application/json": { schema: toJson(endpoint.body, "encoded") } },
            },
          }),
      responses: {
        "200": {
          description:
            "Success. `x-compute-units` gives the CU charged (every response carries it; 0 on errors).",
          content: {
            [endpoint.responseContentType]: {
              schema:
                endpoint.responseContentType === "application/json"
                  ? toJson(endpoint.response, "type")
                  : { type: "string" },
              ...(RESPONSE_EXAMPLES[endpoint.operationId] === undefined
                ? {}
                : { example: RESPONSE_EXAMPLES[endpoint.operationId] }),
            },
          },
        },
        ...Object.fromEntries(
          Object.entries(ERROR_RESPONSES).map(([status, description]) => [
            status,
            {
              description,
              content: { "application/json": { schema: errorSchema, example: ERROR_EXAMPLES[status] } },
            },
          ]),
        ),
      },
      ...(endpoint.auth === "key" ? {} : { security: [] }),
    };
    const methods = paths[endpoint.path] ?? {};
    methods[endpoint.method.toLowerCase()] = operation;
    paths[endpoint.path] = methods;
  }

  // Scheme names allow fewer characters than header names, hence numbered names.
  const alternatives = apiKeyHeaders.map((name, i) => [`apiKeyAlt${i + 1}`, name] as const);
  discriminatePositions(definitions);
  return {
    openapi: "3.1.0",
    servers: [{ url: publicUrl, description: "This deployment (PUBLIC_URL)." }],
    info: {
      title: "Onchain wallet data service",
      version,
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
      description:
        alternatives.length === 0
          ? "Token balances with onchain USD prices, DeFi positions and webhooks for EVM wallets. Every request but the public ones carries X-Svc-Api-Key."
          : `Token balances with onchain USD prices, DeFi positions and webhooks for EVM wallets. Every request but the public ones carries its API key in X-Svc-Api-Key or in ${apiKeyHeaders.join(", ")}; the same key in several of them is accepted, different values are a 400 CONFLICTING_API_KEYS.`,
    },
    security: [{ apiKey: [] }, ...alternatives.map(([scheme]) => ({ [scheme]: [] }))],
    paths,
    components: {
      schemas: definitions,
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-Svc-Api-Key" },
        ...Object.fromEntries(
          alternatives.map(([scheme, name]) => [scheme, { type: "apiKey", in: "header", name }]),
        ),
      },
    },
  };
};
