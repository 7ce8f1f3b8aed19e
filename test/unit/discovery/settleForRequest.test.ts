import { describe, expect, it } from "vitest";
import type { DiscoveryProgress } from "../../../src/discovery/DiscoveryProgress.js";
import { settleForRequest } from "../../../src/discovery/settleForRequest.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";

const chain = testChainConfig();
const WALLET = `0x${"aa".repeat(20)}`;

/**
 * A node that answers eth_blockNumber, or is down (every request unreachable), through the handle
 * requests use (which fails at once on failing nodes rather than wait for them).
 */
const node = (up: boolean) =>
  fakeChainRpc(() =>
    up
      ? { kind: "answers", answers: [{ ok: true, result: "0x64" }] }
      : { kind: "fault", fault: { reason: "Unavailable", detail: "HTTP 500" } },
  ).forRequests(3_000);

/** A discovery that answers `progress` and records how long each request said it would wait. */
const discoveryAt = (progress: DiscoveryProgress) => {
  const waits: Array<number> = [];
  return {
    waits,
    settle: async (_chain: unknown, _wallet: string, waitMs: number) => {
      waits.push(waitMs);
      return progress;
    },
  };
};

describe("a request's wait for a wallet's discovery", () => {
  it("behavior: a wallet whose first sweep failed cannot be answered on the chain: the request names why", async () => {
    const discovery = discoveryAt({ state: "failed", error: "execution reverted" });
    await expect(settleForRequest(discovery, chain, WALLET, node(true), 3_000, "positions")).rejects.toThrow(
      "finding this wallet's tokens and positions failed (execution reverted); retry shortly",
    );
  });

  it("behavior: while the sweep runs, an empty answer is trusted only once the nodes answered", async () => {
    const sweeping = discoveryAt({ state: "sweeping" });
    await expect(settleForRequest(sweeping, chain, WALLET, node(true), 3_000, "positions")).resolves.toEqual({
      state: "sweeping",
    });
    await expect(settleForRequest(sweeping, chain, WALLET, node(false), 3_000, "positions")).rejects.toThrow(
      /its RPC nodes are failing/,
    );
  });

  it("behavior: nodes known to be failing are not waited for, and a swept wallet is answered from its index", async () => {
    const down = node(false);
    await down.request("eth_blockNumber", []).catch(() => undefined);
    expect(down.failing()).toBe(true);
    const sweeping = discoveryAt({ state: "sweeping" });
    await expect(settleForRequest(sweeping, chain, WALLET, down, 3_000, "positions")).rejects.toThrow(
      /failing/,
    );
    expect(sweeping.waits).toEqual([0]);
    const swept = discoveryAt({ state: "scanning", swept_block: 90 });
    await expect(settleForRequest(swept, chain, WALLET, down, 3_000, "positions")).resolves.toMatchObject({
      state: "scanning",
    });
  });
});
