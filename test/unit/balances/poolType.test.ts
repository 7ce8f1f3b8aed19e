import { describe, expect, it } from "vitest";
import { poolType } from "../../../src/balances/decorateEntry.js";

describe("poolType", () => {
  it("default: protocol names become the snake_case pool types clients know", () => {
    expect(poolType("UniswapV2")).toBe("uniswap_v2");
    expect(poolType("UniswapV3")).toBe("uniswap_v3");
    expect(poolType("UniswapV4")).toBe("uniswap_v4");
    expect(poolType("SushiSwapV2")).toBe("sushi_swap_v2");
  });
});
