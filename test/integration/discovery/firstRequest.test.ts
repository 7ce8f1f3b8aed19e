import { Option } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../../src/lib/freePort.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import {
  ALL_CHAIN_IDS,
  expectSameAnswers,
  FLOW_WALLETS,
  type RealNodeEnv,
  startRealNodeEnv,
  type WalletAnswers,
} from "../../support/realNodeFlows.js";
import { eventually } from "../../support/serviceHarness.js";
import { type Answer, type Caller, WEBHOOKS } from "../../support/webhookEnv.js";

let devnet: TestDevnet;
let env: RealNodeEnv;

let metricsPort: number;

beforeAll(async () => {
  devnet = await startTestDevnet();
  metricsPort = await freePort();
  env = await startRealNodeEnv(devnet, new Map(), {
    fromHead: true,
    settings: { metricsPort: Option.some(metricsPort) },
  });
}, 400_000);

afterAll(async () => {
  await env?.stop();
  await devnet?.stop();
});

const warningCodes = (answer: Answer): ReadonlyArray<string> =>
  ((answer.json.warnings ?? []) as ReadonlyArray<{ code: string }>).map((w) => w.code);

const answersOf = async (call: Caller, wallet: string): Promise<WalletAnswers> => ({
  balances: await call(
    "GET",
    `/v1/evm/balances/${wallet}?chain_ids=${ALL_CHAIN_IDS}&historical_prices=24,720&metadata=pools`,
  ),
  positions: await call("GET", `/beta/evm/defi/positions/${wallet}?chain_ids=${ALL_CHAIN_IDS}`),
});

const inProgress = (answers: WalletAnswers) =>
  warningCodes(answers.balances).includes("DISCOVERY_IN_PROGRESS") ||
  warningCodes(answers.positions).includes("DISCOVERY_IN_PROGRESS");

type Discovering = {
  chains: ReadonlyArray<{ chain_id: number; discovery?: { queued: number; complete: number } }>;
};
/** A chain's discovery counts, as /healthz shows them. */
const discoveryOn = async (chainId: number) =>
  ((await env.call("GET", "/healthz")).json as Discovering).chains.find((c) => c.chain_id === chainId)!
    .discovery!;

describe("a service started at the head of chains with years of history it never read", {
  timeout: 300_000,
}, () => {
  it("behavior: every seeded wallet's first answers warn until discovery is done, then equal those of a service that indexed the whole history", async () => {
    const figures: Array<string> = [];
    for (const name of FLOW_WALLETS) {
      const wallet = env.chain(1).wallets[name]!.toLowerCase();
      const started = Date.now();
      let answers = await answersOf(env.call, wallet);
      const firstMs = Date.now() - started;
      // A first balances answer is the sweep's: made before the wallet's log scan starts anywhere.
      const first = (answers.balances.json.warnings ?? []) as ReadonlyArray<{
        code: string;
        message: string;
      }>;
      const discovering = first.find((w) => w.code === "DISCOVERY_IN_PROGRESS")?.message ?? "";
      expect(
        discovering.match(/its transfer history is about to be read/g)?.length,
        `${name}: ${discovering}`,
      ).toBe(4);
      while (inProgress(answers)) {
        expect(answers.balances.status, `${name} balances while discovering`).toBe(200);
        expect(answers.positions.status, `${name} positions while discovering`).toBe(200);
        if (Date.now() - started > 120_000) throw new Error(`${name}: discovery still running after 120 s`);
        await new Promise((resolve) => setTimeout(resolve, 250));
        answers = await answersOf(env.call, wallet);
      }
      figures.push(`${name}: first answer ${firstMs} ms, complete after ${Date.now() - started} ms`);
      expectSameAnswers(name, answers, env.direct.get(name)!);
    }
    console.log(figures.join("\n"));
  });

  it("behavior: wallets a webhook starts watching are discovered in the background, so their first answers are complete", async () => {
    type Counted = { chains: ReadonlyArray<{ chain_id: number; discovery?: { complete: number } }> };
    const completeOn = async () =>
      new Map(
        ((await env.call("GET", "/healthz")).json as Counted).chains.map((c) => [
          c.chain_id,
          c.discovery?.complete ?? 0,
        ]),
      );
    const before = await completeOn();
    const watched = ["trader", "swapper"].map((name) => env.chain(1).wallets[name]!.toLowerCase());
    const created = await env.call("POST", WEBHOOKS, {
      name: "watch",
      url: "http://127.0.0.1:9/hook",
      type: "balances",
      addresses: [watched[0]],
      chain_ids: [1, 8453],
    });
    expect(created.status).toBe(200);
    const added = await env.call("PATCH", `${WEBHOOKS}/${created.json.id}/addresses`, {
      add_addresses: [watched[1]],
    });
    expect(added.status).toBe(200);
    // No request asked about them: the webhook's chains alone gain two complete wallets each.
    await eventually(
      async () => {
        const now = await completeOn();
        return [1, 8453].every((id) => now.get(id)! >= before.get(id)! + 2);
      },
      60_000,
      "the watched wallets discovered on the webhook's chains",
    );
    const now = await completeOn();
    expect(now.get(10)).toBe(before.get(10));
    expect(now.get(57073)).toBe(before.get(57073));
    for (const wallet of watched) {
      const first = await env.call("GET", `/v1/evm/balances/${wallet}?chain_ids=1,8453`);
      expect(first.status).toBe(200);
      expect(warningCodes(first)).not.toContain("DISCOVERY_IN_PROGRESS");
    }
  });

  it("behavior: a deleted webhook's wallets, or those removed from its list, are not discovered once it stops watching them, while another chain's line goes on", async () => {
    const fresh = (chain: number, i: number) =>
      `0x${chain.toString(16).padStart(8, "0")}${"d0"}${i.toString(16).padStart(30, "0")}`;
    const completeBefore = (await discoveryOn(57073)).complete;
    const gone = await env.call("POST", WEBHOOKS, {
      name: "short-lived",
      url: "http://127.0.0.1:9/hook",
      type: "balances",
      addresses: Array.from({ length: 900 }, (_, i) => fresh(57073, i)),
      chain_ids: [57073],
    });
    expect(gone.status).toBe(200);
    // A second webhook's few wallets on another chain do not wait behind the first one's 900
    // (at 5 a second, three minutes of them).
    const kept = await env.call("POST", WEBHOOKS, {
      name: "kept",
      url: "http://127.0.0.1:9/hook",
      type: "balances",
      addresses: [fresh(10, 1), fresh(10, 2)],
      chain_ids: [10],
    });
    expect(kept.status).toBe(200);
    await eventually(async () => (await discoveryOn(57073)).queued > 600, 15_000, "the 900 wallets queued");
    await eventually(
      async () => (await discoveryOn(10)).queued === 0,
      15_000,
      "the other chain's two wallets started",
    );
    // Addresses removed from the list leave the line too: the last 450, which wait behind the rest.
    const removed = await env.call("PATCH", `${WEBHOOKS}/${gone.json.id}/addresses`, {
      remove_addresses: Array.from({ length: 450 }, (_, i) => fresh(57073, 899 - i)),
    });
    expect(removed.status).toBe(200);
    await eventually(
      async () => (await discoveryOn(57073)).queued <= 450,
      15_000,
      "the removed addresses left",
    );
    expect((await env.call("DELETE", `${WEBHOOKS}/${gone.json.id}`)).status).toBe(200);
    await eventually(
      async () => (await discoveryOn(57073)).queued === 0,
      15_000,
      "the deleted webhook's line emptied",
    );
    // Only those started before the delete were discovered, none of the removed ones.
    expect((await discoveryOn(57073)).complete - completeBefore).toBeLessThan(450);
    expect((await env.call("DELETE", `${WEBHOOKS}/${kept.json.id}`)).status).toBe(200);
  });

  it("behavior: a webhook moved to other chains takes its waiting wallets off the chains it left and queues them on those it joined", async () => {
    const addresses = Array.from(
      { length: 300 },
      (_, i) => `0x00000000d1${i.toString(16).padStart(30, "0")}`,
    );
    const completeBefore = (await discoveryOn(57073)).complete;
    const moving = await env.call("POST", WEBHOOKS, {
      name: "moving",
      url: "http://127.0.0.1:9/hook",
      type: "balances",
      addresses,
      chain_ids: [57073],
    });
    expect(moving.status).toBe(200);
    await eventually(async () => (await discoveryOn(57073)).queued > 200, 15_000, "the wallets queued");
    const moved = await env.call("PATCH", `${WEBHOOKS}/${moving.json.id}`, { chain_ids: [8453] });
    expect(moved.status).toBe(200);
    await eventually(
      async () => (await discoveryOn(57073)).queued === 0 && (await discoveryOn(8453)).queued > 200,
      15_000,
      "the line moved from the chain left to the chain joined",
    );
    // Only those started before the move were discovered on the chain it left.
    expect((await discoveryOn(57073)).complete - completeBefore).toBeLessThan(100);
    expect((await env.call("DELETE", `${WEBHOOKS}/${moving.json.id}`)).status).toBe(200);
    await eventually(
      async () => (await discoveryOn(8453)).queued === 0,
      15_000,
      "the deleted webhook's line emptied",
    );
  });

  it("behavior: /healthz and the API worker's metrics show each chain's wallets discovered and its registry backfill done", async () => {
    const UNDER_WAY = ["queued", "sweeping", "scanning", "scan_queued"] as const;
    type Health = {
      chains: ReadonlyArray<{
        chain_id: number;
        discovery?: Record<"complete" | "failed" | (typeof UNDER_WAY)[number], number>;
        registry_backfill?: { done: boolean; fraction: number; from: number; to: number; logs: number };
      }>;
    };
    const read = async () => ({
      health: (await env.call("GET", "/healthz")).json as Health,
      metrics: await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text(),
    });
    const completeLine = (chain: Health["chains"][number]) =>
      new RegExp(
        `^svc_wallet_discoveries\\{chain_id="${chain.chain_id}",chain="[a-z]+",state="complete"\\} ${chain.discovery?.complete}$`,
        "m",
      );
    // The previous tests' webhooks may still have discoveries under way: one that ends between the
    // two reads moves the count, so the two are compared once none is under way.
    let seen = await read();
    await eventually(
      async () => {
        seen = await read();
        return seen.health.chains.every(
          (chain) =>
            UNDER_WAY.every((state) => chain.discovery?.[state] === 0) &&
            completeLine(chain).test(seen.metrics),
        );
      },
      60_000,
      "discovery settled, and /healthz and /metrics agreeing on it",
    );
    const { health, metrics } = seen;
    expect(health.chains).toHaveLength(4);
    for (const chain of health.chains) {
      // Every wallet the first test asked is complete on every chain (each was asked on all four).
      expect(chain.discovery?.complete, `chain ${chain.chain_id}`).toBeGreaterThanOrEqual(
        FLOW_WALLETS.length,
      );
      expect(chain.discovery?.failed).toBe(0);
      expect(chain.registry_backfill).toMatchObject({ done: true, fraction: 1 });
      expect(chain.registry_backfill!.logs).toBeGreaterThan(0);
      expect(metrics).toMatch(
        new RegExp(
          `^svc_registry_backfill_progress\\{chain_id="${chain.chain_id}",chain="[a-z]+"\\} 1$`,
          "m",
        ),
      );
      expect(metrics).toMatch(completeLine(chain));
    }
  });

  it("behavior: after a restart, a wallet discovered before answers complete on its first request, with no warning", async () => {
    const wallet = env.chain(1).wallets[FLOW_WALLETS[0]!]!.toLowerCase();
    await env.restart();
    const answers = await answersOf(env.call, wallet);
    expect(answers.balances.status).toBe(200);
    expect(warningCodes(answers.balances), JSON.stringify(answers.balances.json.warnings)).not.toContain(
      "DISCOVERY_IN_PROGRESS",
    );
    expect(warningCodes(answers.positions), JSON.stringify(answers.positions.json.warnings)).not.toContain(
      "DISCOVERY_IN_PROGRESS",
    );
    expectSameAnswers(FLOW_WALLETS[0]!, answers, env.direct.get(FLOW_WALLETS[0]!)!);
  });
});
