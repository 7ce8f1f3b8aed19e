import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { devAccount } from "../../../src/devnet/devAccounts.js";
import { anvilFixture } from "../../support/anvil.js";
import { openTestChainRpc } from "../../support/chainRpc.js";
import { ONE_LOG_CODE } from "../../support/logEmitters.js";
import { type ProviderProxyOptions, startProviderProxy } from "../../support/providerProxy.js";

/**
 * The chain: 12 empty blocks after genesis, as a real chain's first blocks are, 100 blocks of one
 * log each, 900 empty blocks, and 100 more of one log each: blocks 13-112 and 1,013-1,112. A node
 * keeping the newest 50 blocks' logs keeps them from block 1,062.
 */
const anvil = anvilFixture();
const EMITTER = "0x00000000000000000000000000000000000a11ce";
const WINDOW = 50;
const closers: Array<() => Promise<void>> = [];

const hex = (n: number) => `0x${n.toString(16)}`;

const rpcCall = async (url: string, method: string, params: ReadonlyArray<unknown>) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await response.json()) as { result?: unknown; error?: { message: string } };
};

beforeAll(async () => {
  await anvil.start();
  const url = anvil.node().rpcUrl;
  const logs = async () => {
    // Automine puts each transaction in a block of its own; the last one's receipt means all are mined.
    let last: unknown;
    for (let i = 0; i < 100; i++)
      last = (await rpcCall(url, "eth_sendTransaction", [{ from: devAccount(0).address, to: EMITTER }]))
        .result;
    while ((await rpcCall(url, "eth_getTransactionReceipt", [last])).result === null)
      await new Promise((resolve) => setTimeout(resolve, 5));
  };
  await rpcCall(url, "anvil_mine", [hex(12)]);
  await rpcCall(url, "anvil_setCode", [EMITTER, ONE_LOG_CODE]);
  await logs();
  await rpcCall(url, "anvil_mine", [hex(900)]);
  await logs();
}, 60_000);

/** The chain's head now. */
const headNow = async () =>
  Number.parseInt(String((await rpcCall(anvil.node().rpcUrl, "eth_blockNumber", [])).result), 16);

afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

afterAll(async () => {
  await anvil.stop();
});

/** The first block whose logs the service's probe finds the node behind `options` keeps. */
const probedLogsFrom = async (options: Omit<ProviderProxyOptions, "target" | "style">) => {
  const proxy = await startProviderProxy({ target: anvil.node().rpcUrl, style: "reth", ...options });
  closers.push(proxy.stop);
  const opened = await openTestChainRpc(proxy.url);
  closers.push(opened.close);
  await opened.firstProbe();
  return { logsFrom: opened.rpc.capabilities().logsFrom, proxy };
};

describe("how far back a node keeps logs, when its oldest blocks have none", () => {
  it("behavior: a node that answers [] for the blocks it pruned is found keeping logs from its window, not from genesis", async () => {
    const head = await headNow();
    expect(head).toBe(1_112);
    const { logsFrom, proxy } = await probedLogsFrom({ prunedWindow: WINDOW, silentPrunedLogs: true });
    // The premise: the node's answer for a pruned block with a log is an empty list, not an error.
    const pruned = await rpcCall(proxy.url, "eth_getLogs", [{ fromBlock: hex(13), toBlock: hex(13) }]);
    expect(pruned).toMatchObject({ result: [] });
    const kept = await rpcCall(proxy.url, "eth_getLogs", [{ fromBlock: hex(head), toBlock: hex(head) }]);
    expect(kept.result).toHaveLength(1);
    expect(logsFrom).toBe(head - WINDOW);
  });

  it("behavior: a node that refuses its pruned blocks is found the same", async () => {
    const { logsFrom } = await probedLogsFrom({ prunedWindow: WINDOW });
    expect(logsFrom).toBe((await headNow()) - WINDOW);
  });

  it("default: the same chain unpruned reads as an archive, from block 0", async () => {
    expect((await probedLogsFrom({})).logsFrom).toBe(0);
  });
});
