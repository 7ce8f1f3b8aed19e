import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nativeBalance, sendNative } from "../../support/chainNode.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { expectLiveFlows } from "../../support/liveNodeFlows.js";
import {
  entriesOf,
  expectSameAnswers,
  type RealNodeEnv,
  readWalletAnswers,
  startRealNodeEnv,
} from "../../support/realNodeFlows.js";
import { eventually } from "../../support/serviceHarness.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * The service on the seeded devnet with nodes that answer less: geth refusing batches over 25 and
 * serving no debug methods (ethereum), Erigon refusing batches over 15 (base), a reth full node
 * keeping logs, receipts and state for its last 40 blocks only (optimism), and two endpoints for
 * ink, the primary of which goes away, hangs and falls behind. Answers equal those straight on anvil wherever the node can
 * give them, and say what it cannot.
 */

let devnet: TestDevnet;
let env: RealNodeEnv;
let receiver: Receiver;

interface ChainHealth {
  readonly chain_id: number;
  readonly ingest_mode: string;
  readonly traces?: string;
  readonly history_skipped?: { from: number; to: number } | null;
  readonly node: { endpoints: Array<{ url: string; state: string }> };
}
const health = async () =>
  (await env.call("GET", "/healthz")).json as { status: string; chains: ReadonlyArray<ChainHealth> };
const chainHealth = async (id: number) => (await health()).chains.find((c) => c.chain_id === id)!;

/** A transfer on ink to a fresh address, and its balance answered as the node's own. */
const expectIndexedOnInk = async (to: string, wei: bigint, when: string) => {
  const ink = env.chain(57073);
  await sendNative(ink.rpc_url, devnet.manifest.accounts[0]!.address, to, wei);
  await eventually(
    async () => {
      const answer = await env.call("GET", `/v1/evm/balances/${to}?chain_ids=57073`);
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
      return entriesOf(answer, "balances")[0]?.amount === String(await nativeBalance(ink.rpc_url, to));
    },
    30_000,
    `a transfer indexed ${when}`,
  );
};

beforeAll(async () => {
  devnet = await startTestDevnet();
  env = await startRealNodeEnv(
    devnet,
    new Map([
      [1, [{ style: "geth" as const, maxBatch: 25, noDebug: true }]],
      [8453, [{ style: "erigon" as const, maxBatch: 15 }]],
      [10, [{ style: "reth" as const, prunedWindow: 40 }]],
      [57073, [{ style: "anvil" as const }, { style: "anvil" as const }]],
    ]),
  );
  receiver = await startReceiver();
}, 400_000);

afterAll(async () => {
  await receiver?.stop();
  await env?.stop();
  await devnet?.stop();
});

describe("through nodes that answer less", () => {
  it("behavior: answers equal anvil's where the node has the history; the pruned chain says what is missing", async () => {
    // Native and the chain's configured tokens are read whatever the index knows.
    const configured = JSON.parse(await readFile(devnet.devnet.chainsConfigPath, "utf8")) as {
      chains: Array<{ chain_id: number; tokens: Array<string> }>;
    };
    const needNoHistory = new Set([
      "native",
      ...configured.chains.find((c) => c.chain_id === 10)!.tokens.map((t) => t.toLowerCase()),
    ]);
    const proxied = await readWalletAnswers(env.call, env.chain(1));
    for (const [name, answers] of proxied)
      expectSameAnswers(name, answers, env.direct.get(name)!, new Map([[10, needNoHistory]]));

    const whale = proxied.get("whale")!.balances.json as {
      warnings?: Array<{ code: string; chain_ids: Array<number>; message: string }>;
    };
    expect(whale.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: "INCOMPLETE_HISTORY", chain_ids: [10] }),
        expect.objectContaining({ code: "HISTORICAL_PRICES_UNAVAILABLE", chain_ids: [10] }),
      ]),
    );
    const pruned = await chainHealth(10);
    expect(pruned.ingest_mode).toBe("live");
    expect(pruned.history_skipped?.from).toBe(0);
    // Blocks 0 .. head - 40 were left out, up to about the reth window's start.
    expect(pruned.history_skipped!.to).toBeGreaterThan(500);

    // geth refused batches and debug methods; the service split its batches and read without traces.
    const geth = env.proxies.get(1)![0]!.stats().refusals;
    expect(geth.batch).toBeGreaterThan(0);
    expect(geth.method).toBeGreaterThan(0);
    expect((await chainHealth(1)).traces).toBe("unavailable");
    expect(env.proxies.get(8453)![0]!.stats().refusals.batch).toBeGreaterThan(0);
    const chains = (await env.call("GET", "/v1/evm/supported-chains")).json.chains as Array<{
      chain_id: number;
      indexed_from_block: number;
      internal_transfers: { supported: boolean | null };
    }>;
    expect(chains.find((c) => c.chain_id === 1)!.internal_transfers.supported).toBe(false);
    expect(chains.find((c) => c.chain_id === 10)!.indexed_from_block).toBe(pruned.history_skipped!.to + 1);
    expect(chains.find((c) => c.chain_id === 8453)!.indexed_from_block).toBe(0);
  });

  it("behavior: live blocks, a webhook delivery per chain and a reorg through geth, Erigon and the pruned reth", async () => {
    await expectLiveFlows(env, receiver, { reorgChains: [1, 8453, 10], tag: 2 });
  }, 240_000);

  it("behavior: with ink's primary endpoint gone, reads and ingest go on through its fallback", async () => {
    const [primary] = env.proxies.get(57073)!;
    await primary!.down();
    await expectIndexedOnInk("0x00000000000000000000000000000000feed0101", 5_000n, "through the fallback");
    expect((await health()).status).toBe("ok");
    // Reads may have gone to the fallback first (its answers were faster); the monitor's next head
    // poll of the primary finds it gone.
    await eventually(
      async () =>
        (await chainHealth(57073)).node.endpoints.map((e) => e.state).join() === ["failing", "ok"].join(),
      30_000,
      "the primary shown failing",
    );
    await primary!.up();
    await eventually(
      async () => (await chainHealth(57073)).node.endpoints.every((e) => e.state === "ok"),
      60_000,
      "the primary back",
    );
  });

  it("behavior: ink's primary hung, then behind the chain, is passed over for the fallback and taken back", async () => {
    const [primary] = env.proxies.get(57073)!;
    const primaryState = async () => (await chainHealth(57073)).node.endpoints[0]!.state;

    // Hung: it accepts connections and answers nothing, so only timeouts tell.
    primary!.freeze();
    await expectIndexedOnInk("0x00000000000000000000000000000000feed0201", 5_000n, "while it hangs");
    await eventually(
      async () => (await primaryState()) === "failing",
      30_000,
      "the hung primary shown failing",
    );
    expect((await health()).status).toBe("ok");
    primary!.thaw();
    await eventually(async () => (await primaryState()) === "ok", 60_000, "the primary back after the thaw");

    // Behind: it answers, but its head is 10 blocks under the fallback's (more than the 5 allowed).
    primary!.set({ headLag: 10 });
    await eventually(async () => (await primaryState()) === "lagging", 30_000, "the primary shown lagging");
    await expectIndexedOnInk("0x00000000000000000000000000000000feed0202", 6_000n, "while it lags");
    expect((await health()).status).toBe("ok");
    primary!.set({ headLag: undefined });
    await eventually(async () => (await primaryState()) === "ok", 30_000, "the primary caught up");
  }, 200_000);
});
