import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeBalance } from "../../../src/chains/balanceReads.js";
import { aggregate3, getEthBalanceCall, splitCalls } from "../../../src/chains/multicall3.js";
import type { ChainRpc } from "../../../src/chains/rpc/ChainRpc.js";
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from "../../../src/devnet/multicall3.js";
import { anvilFixture } from "../../support/anvil.js";
import { directChainRpc } from "../../support/chainRpc.js";

const anvil = anvilFixture();
let client: ChainRpc;
let close: () => Promise<void> = async () => undefined;

const rpc = (method: string, params: ReadonlyArray<unknown>) =>
  fetch(anvil.node().rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  }).then((r) => r.json());

const wallet = (n: number) => `0x${(0xa000_0000 + n).toString(16).padStart(40, "0")}`;

beforeAll(async () => {
  await anvil.start();
  await rpc("anvil_setCode", [MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE]);
  ({ rpc: client, close } = directChainRpc(anvil.node().rpcUrl));
  // A few wallets with distinct native balances, spread over the batch.
  for (const n of [0, 2_999, 5_999]) await rpc("anvil_setBalance", [wallet(n), `0x${(n + 1).toString(16)}`]);
}, 120_000);

afterAll(async () => {
  await close();
  await anvil.stop();
});

describe("aggregate3 over a batch larger than one request may carry", () => {
  it("behavior: 6,000 reads (about 2.7 MB of JSON, over anvil's 2 MB body limit) come back whole and in order", async () => {
    const calls = Array.from({ length: 6_000 }, (_, n) => getEthBalanceCall(wallet(n)));
    expect(splitCalls(calls).length).toBeGreaterThan(1);
    const block = Number.parseInt(await client.request<string>("eth_blockNumber", []), 16);
    const results = await aggregate3(client, calls, { block: { number: block } });
    expect(results).toHaveLength(6_000);
    expect(results.every((r) => r.success)).toBe(true);
    const balances = results.map((r) => decodeBalance(r));
    expect([balances[0], balances[2_999], balances[5_999], balances[1]]).toEqual([1n, 3_000n, 6_000n, 0n]);
  });

  it("behavior: an override's code counts once per request, and a batch within the budget stays one request", () => {
    const code = `0x${"60".repeat(20_000)}` as Hex;
    const calls = Array.from({ length: 1_200 }, (_, n) => ({ ...getEthBalanceCall(wallet(n)), code }));
    expect(splitCalls(calls)).toHaveLength(1);
  });
});
