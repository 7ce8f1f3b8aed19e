import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SWEEP_BATCH, sweepBalances } from "../../../src/discovery/sweepBalances.js";
import { anvilFixture } from "../../support/anvil.js";
import { nodeCall } from "../../support/chainNode.js";
import { directChainRpc } from "../../support/chainRpc.js";

/** Runtime codes placed with anvil_setCode: tokens and hostile look-alikes. */
const CODE = {
  /** `balanceOf(anyone)` answers storage slot 0. */
  slotZero: "0x60005460005260206000f3",
  /** Loops until its gas runs out. */
  gasBurner: "0x5b600056",
  /** Reverts. */
  reverter: "0x60006000fd",
  /** Answers 16 bytes. */
  short: "0x60106000f3",
  /** Answers 100,000 bytes of zeros (memory the lens must not copy). */
  huge: "0x620186a06000f3",
} as const satisfies Record<string, Hex>;

const node = anvilFixture({ chainId: 31337 });
const WALLET = `0x${"77".repeat(20)}`;
const addressAt = (i: number) => `0x${(0x100000 + i).toString(16).padStart(40, "0")}`;

/** Places `code` at `address`, and `balance` in its slot 0 when given. */
const place = async (url: string, address: string, code: Hex, balance?: bigint) => {
  await nodeCall(url, "anvil_setCode", [address, code]);
  if (balance !== undefined)
    await nodeCall(url, "anvil_setStorageAt", [
      address,
      "0x0",
      `0x${balance.toString(16).padStart(64, "0")}`,
    ]);
};

beforeAll(async () => {
  await node.start();
});
afterAll(() => node.stop());

describe("the balance sweep", () => {
  it("behavior: among 1,200 contracts that burn gas, revert, answer short or 100 KB, or have no code, finds exactly the held tokens and their amounts", async () => {
    const url = node.node().rpcUrl;
    const held = new Map<string, bigint>();
    const tokens: Array<string> = [];
    const hostile = [CODE.gasBurner, CODE.reverter, CODE.short, CODE.huge] as const;
    for (let i = 0; i < 1_200; i++) {
      const address = addressAt(i);
      tokens.push(address);
      if (i % 10 === 0) {
        const amount = BigInt(i + 1) * 10n ** 18n;
        await place(url, address, CODE.slotZero, amount);
        held.set(address, amount);
      } else if (i % 10 === 1) await place(url, address, CODE.slotZero, 0n);
      else if (i % 10 <= 5) await place(url, address, hostile[(i % 10) - 2]!);
      // the rest have no code
    }
    const { rpc, close } = directChainRpc(url);
    try {
      const head = Number(await nodeCall<string>(url, "eth_blockNumber"));
      const result = await sweepBalances(rpc, WALLET, tokens, { number: head });
      expect(new Map(result.held.map((h) => [h.token, h.amount]))).toEqual(held);
      // 1,200 tokens in batches of SWEEP_BATCH, none refused
      expect(result.calls).toBe(Math.ceil(1_200 / SWEEP_BATCH));
    } finally {
      await close();
    }
  });

  it("behavior: a batch whose tokens all burn their whole allowance is read again in halves, never answered short", async () => {
    const url = node.node().rpcUrl;
    const tokens: Array<string> = [];
    const held = new Map<string, bigint>();
    for (let i = 0; i < SWEEP_BATCH; i++) {
      const address = addressAt(5_000 + i);
      tokens.push(address);
      if (i % 50 === 49) {
        await place(url, address, CODE.slotZero, 7n);
        held.set(address, 7n);
      } else await place(url, address, CODE.gasBurner);
    }
    const { rpc, close } = directChainRpc(url);
    try {
      const head = Number(await nodeCall<string>(url, "eth_blockNumber"));
      const result = await sweepBalances(rpc, WALLET, tokens, { number: head });
      expect(new Map(result.held.map((h) => [h.token, h.amount]))).toEqual(held);
      expect(result.calls).toBeGreaterThan(1);
    } finally {
      await close();
    }
  });
});
