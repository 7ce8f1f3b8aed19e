import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { expectLiveFlows } from "../../support/liveNodeFlows.js";
import {
  expectSameAnswers,
  type RealNodeEnv,
  readWalletAnswers,
  startRealNodeEnv,
} from "../../support/realNodeFlows.js";
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
    // The rate-limited ones refused some elements over their rate (as a whole request at Infura, per
    // batch element at QuickNode and Alchemy), and the answers above came whole all the same.
    for (const id of [8453, 10, 57073])
      expect(refusals(id).rate, `rate refusals on ${id}`).toBeGreaterThan(0);
    const health = (await env.call("GET", "/healthz")).json as {
      status: string;
      chains: Array<{ ingest_mode: string }>;
    };
    expect(health.status).toBe("ok");
    expect(health.chains.every((c) => c.ingest_mode === "live")).toBe(true);
  });

  it("behavior: live blocks, a webhook delivery per chain and a reorg on every chain, through the same providers", async () => {
    await expectLiveFlows(env, receiver, { reorgChains: [1, 8453, 10, 57073], tag: 1 });
  }, 240_000);
});
