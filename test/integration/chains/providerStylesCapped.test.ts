import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nativeBalance, nodeCall, sendNative } from "../../support/chainNode.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import {
  ALL_CHAIN_IDS,
  entriesOf,
  expectSameAnswers,
  type RealNodeEnv,
  readWalletAnswers,
  startRealNodeEnv,
} from "../../support/realNodeFlows.js";
import { eventually } from "../../support/serviceHarness.js";
import { WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

/**
 * The service on the seeded devnet with every chain behind a provider that caps and rate-limits:
 * reth's result cap (with the range it suggests) and a 50-block range cap on ethereum, QuickNode's
 * 40-block range cap and per-element 429s on base, Infura's result cap and whole-request 429s with
 * backoff_seconds on optimism, Alchemy's per-element 429s on ink. Every flow must answer as it does
 * straight on anvil, with no 5xx, having met those refusals and recovered from them.
 */

let devnet: TestDevnet;
let env: RealNodeEnv;
let receiver: Receiver;

beforeAll(async () => {
  devnet = await startTestDevnet();
  env = await startRealNodeEnv(
    devnet,
    new Map([
      [1, [{ style: "reth" as const, maxLogsRange: 50, maxLogsResults: 150 }]],
      [8453, [{ style: "quicknode" as const, maxLogsRange: 40, rateLimit: { rps: 150 } }]],
      [10, [{ style: "infura" as const, maxLogsResults: 100, rateLimit: { rps: 150 } }]],
      [57073, [{ style: "alchemy" as const, rateLimit: { rps: 100 } }]],
    ]),
  );
  receiver = await startReceiver();
}, 400_000);

afterAll(async () => {
  await receiver?.stop();
  await env?.stop();
  await devnet?.stop();
});

describe("through capped and rate-limited providers", () => {
  it("behavior: history, balances with historical prices, and positions answer as straight on anvil", async () => {
    const proxied = await readWalletAnswers(env.call, env.chain(1));
    for (const [name, answers] of proxied) expectSameAnswers(name, answers, env.direct.get(name)!);
    // The refusals were met, not avoided: every provider refused something and was recovered from.
    const refusals = (id: number) => env.proxies.get(id)![0]!.stats().refusals;
    expect(refusals(1).range + refusals(1).results).toBeGreaterThan(0);
    expect(refusals(8453).range).toBeGreaterThan(0);
    expect(refusals(10).results).toBeGreaterThan(0);
    const health = (await env.call("GET", "/healthz")).json as {
      status: string;
      chains: Array<{ ingest_mode: string }>;
    };
    expect(health.status).toBe("ok");
    expect(health.chains.every((c) => c.ingest_mode === "live")).toBe(true);
  });

  it("behavior: live blocks, a webhook delivery per chain and a reorg, through the same providers", async () => {
    const from = devnet.manifest.accounts[0]!.address;
    const watched = "0x00000000000000000000000000000000feed0001";
    const created = await env.call("POST", WEBHOOKS, {
      name: "real nodes",
      url: receiver.url,
      type: "transactions",
      addresses: [watched],
    });
    expect(created.status).toBe(200);
    const chainIds = [1, 8453, 10, 57073];
    const delivered = (id: number) =>
      receiver.received.some((r) => r.headers["svc-webhook-chain-id"] === String(id));
    // The notifier takes the new address in a moment: send until each chain's transfer is delivered.
    await eventually(
      async () => {
        const pending = chainIds.filter((id) => !delivered(id));
        for (const id of pending) await sendNative(env.chain(id).rpc_url, from, watched, 1_000n);
        await new Promise((r) => setTimeout(r, 700));
        return chainIds.every(delivered);
      },
      90_000,
      "a delivery on every chain",
    );
    // Balances follow the live blocks: the amounts equal the nodes' own.
    await eventually(
      async () => {
        const answer = await env.call("GET", `/v1/evm/balances/${watched}?chain_ids=${ALL_CHAIN_IDS}`);
        expect(answer.status).toBe(200);
        const amounts = new Map(
          entriesOf(answer, "balances").map((e) => [e.chain_id, BigInt(String(e.amount))]),
        );
        for (const id of chainIds)
          if (amounts.get(id) !== (await nativeBalance(env.chain(id).rpc_url, watched))) return false;
        return true;
      },
      30_000,
      "balances equal to the nodes'",
    );

    // A reorg on ethereum (behind reth's caps): a block replaced by a longer branch.
    const url = env.chain(1).rpc_url;
    const orphaned = "0x00000000000000000000000000000000feed0002";
    const kept = "0x00000000000000000000000000000000feed0003";
    let lastAnswer = "";
    const balanceOn1 = async (wallet: string) => {
      const answer = await env.call("GET", `/v1/evm/balances/${wallet}?chain_ids=1`);
      lastAnswer = JSON.stringify(answer.json);
      expect(answer.status, lastAnswer).toBe(200);
      // An answer that names the chain in its errors says nothing of the wallet's balance there.
      const failed = (answer.json as { errors?: { chain_errors?: ReadonlyArray<unknown> } }).errors
        ?.chain_errors?.length;
      if (failed) return "unanswered";
      return entriesOf(answer, "balances").find((e) => e.address === "native")?.amount;
    };
    const snapshot = await nodeCall<string>(url, "evm_snapshot");
    await sendNative(url, from, orphaned, 7_000n);
    await eventually(async () => (await balanceOn1(orphaned)) === "7000", 30_000, "the orphan block indexed");
    await nodeCall(url, "evm_revert", [snapshot]);
    await sendNative(url, from, kept, 9_000n);
    await nodeCall(url, "anvil_mine", ["0x2"]);
    // Until the index has followed the reorg, answers are those of the block it stands on: the
    // orphaned one, then the common ancestor. Once it holds the new branch's head (longer than the
    // orphaned branch), the orphaned transfer is gone and the kept one is there.
    const newHead = Number.parseInt(await nodeCall<string>(url, "eth_blockNumber"), 16);
    let chain1: { indexed_block?: number | null } | undefined;
    await eventually(
      async () => {
        const health = (await env.call("GET", "/healthz")).json as {
          chains: Array<{ chain_id: number; indexed_block?: number | null }>;
        };
        chain1 = health.chains.find((c) => c.chain_id === 1);
        return (chain1?.indexed_block ?? 0) >= newHead;
      },
      // On a loaded machine a chain's lease can lapse and pass to a stand-by follower, which then
      // follows the reorg a lease's length later.
      90_000,
      "the new branch indexed",
    ).catch((error: Error) => {
      throw new Error(`${error.message} (head ${newHead}; /healthz: ${JSON.stringify(chain1)})`);
    });
    // A read on a loaded machine can still name the chain in its errors (its budget ran out): the
    // answers are asked until both come whole, and then must be the new branch's.
    await eventually(
      async () => (await balanceOn1(kept)) === "9000" && (await balanceOn1(orphaned)) === undefined,
      30_000,
      "the new branch's balances",
    ).catch((error: Error) => {
      throw new Error(`${error.message}; the last answer: ${lastAnswer}`);
    });
  }, 240_000);
});
