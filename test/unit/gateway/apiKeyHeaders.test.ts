import { Either } from "effect";
import { describe, expect, it } from "vitest";
import { findApiKey, parseApiKeyHeaders } from "../../../src/gateway/apiKeyHeaders.js";

describe("API_KEY_HEADERS", () => {
  it("default: header names, trimmed and lower-cased; X-Svc-Api-Key itself needs no listing", () => {
    expect(parseApiKeyHeaders(" X-Api-Key, x-old-key ,,X-Svc-Api-Key")).toEqual(
      Either.right(["x-api-key", "x-old-key"]),
    );
    expect(parseApiKeyHeaders("")).toEqual(Either.right([]));
  });

  it("error: a name that is not an HTTP token, or one the gateway reads for something else", () => {
    for (const bad of ["x api key", "x-key:", "x-ключ", "content-type", "X-Request-Id", "x".repeat(65)]) {
      expect(Either.isLeft(parseApiKeyHeaders(bad)), bad).toBe(true);
    }
  });
});

describe("findApiKey", () => {
  const extra = ["x-api-key"];
  it("default: the key from X-Svc-Api-Key, or from an extra header", () => {
    expect(findApiKey({ "x-svc-api-key": "svc_a" }, extra)).toEqual({ kind: "key", key: "svc_a" });
    expect(findApiKey({ "x-api-key": "svc_a" }, extra)).toEqual({ kind: "key", key: "svc_a" });
    expect(findApiKey({}, extra)).toEqual({ kind: "none" });
  });

  it("behavior: extra headers count only when configured; empty values are absent", () => {
    expect(findApiKey({ "x-api-key": "svc_a" }, [])).toEqual({ kind: "none" });
    expect(findApiKey({ "x-svc-api-key": "", "x-api-key": "svc_a" }, extra)).toEqual({
      kind: "key",
      key: "svc_a",
    });
  });

  it("error: the same key twice is one key; two different keys are a conflict", () => {
    expect(findApiKey({ "x-svc-api-key": "svc_a", "x-api-key": "svc_a" }, extra)).toEqual({
      kind: "key",
      key: "svc_a",
    });
    expect(findApiKey({ "x-svc-api-key": "svc_a", "x-api-key": "svc_b" }, extra)).toEqual({
      kind: "conflict",
      names: ["x-svc-api-key", "x-api-key"],
    });
  });
});
