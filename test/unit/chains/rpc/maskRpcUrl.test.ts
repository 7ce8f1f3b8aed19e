import { describe, expect, it } from "vitest";
import { maskRpcUrl } from "../../../../src/chains/rpc/maskRpcUrl.js";

describe("maskRpcUrl", () => {
  it("behavior: provider keys in the path, query and user info are never shown", () => {
    expect(maskRpcUrl("https://eth-mainnet.g.alchemy.com/v2/AbC123dEf456GhI789jKl")).toBe(
      "https://eth-mainnet.g.alchemy.com/v2/***",
    );
    expect(maskRpcUrl("https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef")).toBe(
      "https://mainnet.infura.io/v3/***",
    );
    expect(maskRpcUrl("https://user:secret@node.example:8545/rpc?apikey=xyz")).toBe(
      "https://***@node.example:8545/rpc?***",
    );
  });

  it("default: a plain node URL stays readable", () => {
    expect(maskRpcUrl("http://127.0.0.1:8545")).toBe("http://127.0.0.1:8545");
    expect(maskRpcUrl("http://reth.internal:8545/")).toBe("http://reth.internal:8545");
  });
});
