import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../../src/devnet/devAccounts.js";
import { type FilterWidth, filterWidth, scanWalletsStretch } from "../../../src/discovery/walletLogScan.js";
import { anvilFixture } from "../../support/anvil.js";
import { nodeCall } from "../../support/chainNode.js";
import { directChainRpc } from "../../support/chainRpc.js";
import { TRANSFER_EMITTER_CODE, transferCalldata } from "../../support/logEmitters.js";
import { type ProviderProxy, startProviderProxy } from "../../support/providerProxy.js";

/*
 * A batch of wallets' transfer history read from a real anvil, straight and through a geth that
 * takes at most three alternatives per filter position (`--rpc.logquerylimit 3`, its own refusal).
 */

const node = anvilFixture();
const FROM = devAccount(0).address;
const OUTSIDER = `0x${"0d".repeat(20)}`;
const wallet = (n: number) => `0x${(0xe000 + n).toString(16).padStart(40, "0")}`;
const token = (n: number) => `0x${(0xa000 + n).toString(16).padStart(40, "0")}`;
const WALLETS = Array.from({ length: 10 }, (_, i) => wallet(i));

/** What each wallet should be found with: token -> first block. */
const expected = new Map<string, Map<string, number>>(WALLETS.map((w) => [w, new Map()]));
let head = 0;
let proxy: ProviderProxy;

/** Emits a transfer of `tokenAddress` from `from` to `to` in a block of its own; answers the block. */
const transfer = async (tokenAddress: string, from: string, to: string): Promise<number> => {
  const url = node.node().rpcUrl;
  const hash = await nodeCall<string>(url, "eth_sendTransaction", [
    { from: FROM, to: tokenAddress, data: transferCalldata(from, to) },
  ]);
  type Receipt = { blockNumber: string; logs: ReadonlyArray<unknown> } | null;
  let receipt: Receipt = null;
  // Mined at once, but its receipt may be a moment behind on a busy machine.
  while (receipt === null) {
    receipt = await nodeCall<Receipt>(url, "eth_getTransactionReceipt", [hash]);
    if (receipt === null) await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(receipt.logs).toHaveLength(1);
  return Number(receipt.blockNumber);
};

const note = (who: string, tokenAddress: string, block: number) => {
  const found = expected.get(who);
  if (found !== undefined && !found.has(tokenAddress)) found.set(tokenAddress, block);
};

beforeAll(async () => {
  await node.start();
  const url = node.node().rpcUrl;
  for (let t = 0; t < 3; t++) await nodeCall(url, "anvil_setCode", [token(t), TRANSFER_EMITTER_CODE]);
  for (const [i, w] of WALLETS.entries()) note(w, token(i % 3), await transfer(token(i % 3), OUTSIDER, w));
  // Between two wallets of the batch: found for both.
  const between = await transfer(token(2), wallet(1), wallet(4));
  note(wallet(1), token(2), between);
  note(wallet(4), token(2), between);
  // Among outsiders only: found for nobody.
  await transfer(token(0), OUTSIDER, `0x${"0e".repeat(20)}`);
  head = Number(await nodeCall<string>(url, "eth_blockNumber"));
  proxy = await startProviderProxy({ target: url, style: "geth", maxFilterWidth: 3 });
}, 60_000);

afterAll(async () => {
  await proxy?.stop();
  await node.stop();
});

const scan = async (url: string, width: FilterWidth, from = 0, to = head) => {
  const { rpc, close } = directChainRpc(url);
  try {
    return await Effect.runPromise(scanWalletsStretch(rpc, WALLETS, from, to, new Set(), width));
  } finally {
    await close();
  }
};

const asFound = (read: Awaited<ReturnType<typeof scan>>) => {
  expect(read.failed.size).toBe(0);
  return new Map(
    [...read.found].map(([w, stretch]) => [
      w,
      new Map(stretch.tokens.map((t) => [t.token, t.block] as const)),
    ]),
  );
};

describe("a batch of wallets' transfer history on a real node", { timeout: 60_000 }, () => {
  it("behavior: one set of filters finds each wallet's own transfers, a transfer between two of them for both", async () => {
    const found = await scan(node.node().rpcUrl, filterWidth(200));
    expect(asFound(found)).toEqual(expected);
  });

  it("behavior: behind a geth that takes three alternatives a position, the batch is asked in halves, finds the same, and the next stretch is not refused", async () => {
    proxy.resetStats();
    const width = filterWidth(200);
    const found = await scan(proxy.url, width);
    expect(asFound(found)).toEqual(expected);
    const first = proxy.stats();
    expect(first.refusals.width).toBeGreaterThan(0);
    // 10 refused, then 5, then 3 answered: the width the node takes.
    expect(width.most).toBe(3);
    proxy.resetStats();
    // The same history again: at the width the node took, nothing is refused.
    expect(asFound(await scan(proxy.url, width))).toEqual(expected);
    const second = proxy.stats();
    expect(second.refusals.width).toBe(0);
    // Ten wallets three a batch: four batches of four filters, against forty one by one.
    expect(second.methods.eth_getLogs).toBe(16);
  });
});
