import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anvilPid } from "../../../bench/lib/anvilPid.js";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { freePort } from "../../../src/lib/freePort.js";
import { adminBuckets } from "../../support/anvilService.js";
import { rewriteChainsFile } from "../../support/chainsFile.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { eventually, type RunningService, startService } from "../../support/serviceHarness.js";
import { type Caller, callerFor } from "../../support/webhookEnv.js";

/**
 * One chain's troubles stay that chain's: with optimism's endpoint pointing nowhere and ink's at a
 * node of another chain from the start, and then base's only node frozen (SIGSTOP) while running,
 * requests for the other chains keep answering, requests that include a failing chain answer
 * within their time with `errors` naming it, and /healthz says "degraded" (200) naming each chain
 * and its cause, never "starting" forever.
 */

let nats: TestNats;
let devnet: TestDevnet;
let service: RunningService;
let call: Caller;
let frozen: number | undefined;

interface Health {
  readonly status: string;
  readonly reason?: string;
  readonly degraded_chains?: ReadonlyArray<number>;
}
const health = async (query = "") => {
  const res = await fetch(`${service.baseUrl}/healthz${query}`);
  return { status: res.status, body: (await res.json()) as Health };
};

beforeAll(async () => {
  nats = await startTestNats();
  devnet = await startTestDevnet();
  const nowhere = `http://127.0.0.1:${await freePort()}`;
  const ethereum = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const chainsConfig = await rewriteChainsFile(
    devnet.devnet.chainsConfigPath,
    new Map([
      [10, nowhere],
      [57073, ethereum.rpc_url],
    ]),
  );
  service = await startService(nats, { chainsConfig });
  const { key } = await Effect.runPromise(
    createKey(await adminBuckets(await nats.connectAs("admin")), "faults"),
  );
  call = callerFor(service.baseUrl, key);
}, 200_000);

afterAll(async () => {
  if (frozen !== undefined) process.kill(frozen, "SIGCONT");
  await service?.stop();
  await devnet?.stop();
  await nats?.stop();
});

describe("a chain whose nodes fail", () => {
  it("behavior: an endpoint pointing nowhere or at another chain degrades only its chain, named with its cause", async () => {
    await eventually(async () => (await health()).body.status === "degraded", 150_000, "healthz degraded");
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body.degraded_chains).toEqual([10, 57073]);
    expect(body.reason).toMatch(
      /optimism \(10\) RPC not answering \(http:\/\/127\.0\.0\.1:\d+: connection refused/,
    );
    expect(body.reason).toMatch(
      /ink \(57073\) RPC not answering \(http:\/\/127\.0\.0\.1:\d+: serves chain id 1, not 57073/,
    );
    expect((await health("?chain_id=1")).status).toBe(200);
    expect((await health("?chain_id=10")).status).toBe(503);
    expect((await health("?chain_id=999")).status).toBe(400);
  });

  it("behavior: base's only node frozen: other chains keep answering, requests with base answer in time naming it", async () => {
    const base = devnet.manifest.chains.find((c) => c.chain_id === 8453)!;
    const wallet = (name: string) => devnet.manifest.chains[0]!.wallets[name]!.toLowerCase();
    frozen = anvilPid(base.rpc_url);
    expect(frozen).toBeDefined();
    process.kill(frozen!, "SIGSTOP");

    // A wallet not read before (nothing cached): chain 1 answers, base is an error, within the budget.
    const started = performance.now();
    const both = await call("GET", `/v1/evm/balances/${wallet("trader")}?chain_ids=1,8453`);
    const took = performance.now() - started;
    expect(both.status).toBe(200);
    expect(took).toBeLessThan(9_500);
    expect(both.json.errors).toMatchObject({ chain_errors: [{ chain_id: 8453 }] });
    expect((both.json.balances as Array<{ chain_id: number }>).every((e) => e.chain_id === 1)).toBe(true);

    // Once the monitor has seen the node hang, the chain is degraded and its requests fail at once.
    await eventually(
      async () => (await health()).body.degraded_chains?.includes(8453) === true,
      30_000,
      "base degraded",
    );
    expect((await health()).status).toBe(200);
    expect((await health("?chain_id=8453")).status).toBe(503);
    const fast = performance.now();
    const onlyBase = await call("GET", `/beta/evm/defi/positions/${wallet("v3_lp")}?chain_ids=8453`);
    expect(performance.now() - fast).toBeLessThan(2_000);
    expect(onlyBase.status).toBe(503);
    expect(onlyBase.json.error).toMatch(/base \(8453\) cannot be read right now/);
    const other = await call("GET", `/beta/evm/defi/positions/${wallet("v3_lp")}?chain_ids=1`);
    expect(other.status).toBe(200);

    process.kill(frozen!, "SIGCONT");
    frozen = undefined;
    await eventually(
      async () => !((await health()).body.degraded_chains ?? []).includes(8453),
      60_000,
      "base back",
    );
    const again = await call("GET", `/v1/evm/balances/${wallet("swapper")}?chain_ids=8453`);
    expect(again.status).toBe(200);
    expect(again.json.errors).toBeUndefined();
  });
});
