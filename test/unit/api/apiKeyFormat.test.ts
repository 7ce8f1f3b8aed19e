import { describe, expect, it } from "vitest";
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
} from "../../../src/api/keys/apiKeyFormat.js";

describe("API key format", () => {
  it("default: keys carry 256 random bits and are recognised by shape", () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) {
      expect(key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key.slice(4), "base64url").length).toBe(32);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  it("error: wrong lengths, prefixes and alphabets are not well formed", () => {
    const key = generateApiKey();
    for (const bad of [
      key.slice(0, -1),
      `${key}A`,
      key.replace("svc_", "sim_"),
      `${key.slice(0, -1)}!`,
      "",
      " ".repeat(47),
    ]) {
      expect(isWellFormedApiKey(bad)).toBe(false);
    }
  });

  it("behavior: only a hash is stored; the shown prefix does not reveal the secret", () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hashApiKey(key));
    expect(displayPrefix(key)).toHaveLength(8);
  });
});
