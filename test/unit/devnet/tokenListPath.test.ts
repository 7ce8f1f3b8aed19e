import { isAbsolute, join } from "node:path";
import { describe, expect, it } from "vitest";
import { devnetTokenListPath } from "../../../src/devnet/Devnet.js";

describe("the devnet's token list path", () => {
  it("behavior: absolute beside the chains file, even when DATA_DIR is relative (npm start's default)", () => {
    const path = devnetTokenListPath(join("data", "devnet", "chains.json"));
    expect(isAbsolute(path)).toBe(true);
    expect(path).toBe(join(process.cwd(), "data", "devnet", "tokens.json"));
  });
});
