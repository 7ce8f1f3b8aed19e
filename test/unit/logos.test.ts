import { describe, expect, it } from "vitest";
import { etagOf, generatedLogo } from "../../src/logos/generatedLogo.js";

describe("generated logos", () => {
  it("default: the same token always gets the same SVG with its symbol", () => {
    const svg = generatedLogo("1:0xabc", "usdc");
    expect(svg).toBe(generatedLogo("1:0xabc", "usdc"));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain(">USDC</text>");
    expect(etagOf(svg)).toBe(etagOf(generatedLogo("1:0xabc", "usdc")));
  });

  it("error: hostile symbols cannot inject markup", () => {
    const svg = generatedLogo("1:0xabc", '<script>alert("x")</script>');
    expect(svg).not.toContain("<script");
    expect(svg).toContain(">SCRI</text>");
    expect(generatedLogo("1:0xabc", null)).toContain(">?</text>");
  });
});
