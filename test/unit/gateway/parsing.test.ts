import { describe, expect, it } from "vitest";
import { parseJsonBody } from "../../../src/gateway/parseJsonBody.js";
import { parseQuery } from "../../../src/gateway/parseQuery.js";

describe("parseQuery", () => {
  it("default: decodes single values", () => {
    expect(parseQuery("chain_ids=1%2C8453&limit=5")).toEqual({
      kind: "ok",
      query: { chain_ids: "1,8453", limit: "5" },
    });
    expect(parseQuery("")).toEqual({ kind: "ok", query: {} });
  });

  it("error: a repeated parameter, too many parameters or a huge value", () => {
    expect(parseQuery("a=1&a=2")).toMatchObject({ kind: "invalid", code: "DUPLICATE_QUERY_PARAMETER" });
    expect(parseQuery(Array.from({ length: 65 }, (_, i) => `p${i}=1`).join("&"))).toMatchObject({
      code: "TOO_MANY_QUERY_PARAMETERS",
    });
    expect(parseQuery(`a=${"x".repeat(5000)}`)).toMatchObject({ code: "QUERY_PARAMETER_TOO_LONG" });
  });

  it("behavior: names like __proto__ are plain keys", () => {
    const result = parseQuery("__proto__=1&constructor=2");
    expect(result.kind === "ok" && Object.keys(result.query)).toEqual(["__proto__", "constructor"]);
  });
});

describe("parseJsonBody", () => {
  it("default: JSON with a JSON content type", () => {
    expect(parseJsonBody(Buffer.from('{"a":1}'), "application/json; charset=utf-8")).toEqual({
      kind: "ok",
      body: { a: 1 },
    });
    expect(parseJsonBody(Buffer.alloc(0), undefined)).toEqual({ kind: "ok", body: undefined });
  });

  it("error: content type, encoding and syntax each have their own code", () => {
    expect(parseJsonBody(Buffer.from("{}"), "text/plain")).toMatchObject({
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
    });
    expect(parseJsonBody(Buffer.from([0xc3, 0x28]), "application/json")).toMatchObject({
      status: 400,
      code: "INVALID_ENCODING",
    });
    expect(parseJsonBody(Buffer.from("{"), "application/json")).toMatchObject({
      status: 400,
      code: "MALFORMED_JSON",
    });
    expect(parseJsonBody(Buffer.from("[".repeat(5000) + "]".repeat(5000)), "application/json")).toEqual({
      kind: "invalid",
      status: 400,
      code: "JSON_TOO_DEEP",
      message: "The request body nests JSON arrays and objects more than 32 levels deep.",
    });
    expect(parseJsonBody(Buffer.from("[".repeat(32) + "]".repeat(32)), "application/json")).toMatchObject({
      kind: "ok",
    });
  });
});
