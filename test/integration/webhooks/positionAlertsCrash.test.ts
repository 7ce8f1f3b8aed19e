import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceProcess } from "../../../bench/lib/benchEnv.js";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { chainClient } from "../../../src/devnet/ChainClient.js";
import { aaveOracle } from "../../support/aaveOracle.js";
import { startAlertCrashEnv } from "../../support/alertCrashEnv.js";
import { adminBuckets } from "../../support/anvilService.js";
import type { TestDevnet } from "../../support/devnetFixture.js";
import { devnetNotifierProbe } from "../../support/devnetNotifierProbe.js";
import type { TestNats } from "../../support/natsServer.js";
import { PROCESS_DEADLINE_MS } from "../../support/runTs.js";
import { eventually } from "../../support/serviceHarness.js";
import { callerFor, LOCAL_RECEIVER_ENV, WEBHOOKS } from "../../support/webhookEnv.js";
import type { Receiver } from "../../support/webhookReceiver.js";

/**
 * A `positions` alert through a kill -9 of the service's own process: the alert's first request is
 * held unanswered when the process dies, and once it is started again the alert comes again (same
 * event, same webhook-id), the blocks planned while it was down alert nothing new (the fired alert
 * was kept), and a later crossing alerts once.
 */

const CHAIN = 8453;

let env: Awaited<ReturnType<typeof startAlertCrashEnv>>;
let nats: TestNats;
let devnet: TestDevnet;
let receiver: Receiver;

beforeAll(async () => {
  env = await startAlertCrashEnv();
  ({ nats, devnet, receiver } = env);
});

afterAll(() => env?.stop());

describe("position alerts survive a crash", { timeout: 3 * PROCESS_DEADLINE_MS }, () => {
  it("behavior: kill -9 between the crossing block and the alert's delivery loses nothing and sends no extra alert", async () => {
    let service = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
      env: LOCAL_RECEIVER_ENV,
    });
    const admin = await nats.connectAs("admin");
    const { key } = await Effect.runPromise(createKey(await adminBuckets(admin), "crash"));
    const call = callerFor(service.url, key);
    const chain = devnet.manifest.chains.find((c) => c.chain_id === CHAIN)!;
    const borrower = chain.lending_positions
      .find((p) => p.purpose === "borrower" && p.kind === "aave_v3")!
      .owner.toLowerCase();
    const created = await call("POST", WEBHOOKS, {
      name: "crash",
      url: receiver.url,
      type: "positions",
      addresses: [borrower],
      chain_ids: [CHAIN],
      conditions: { health_factor_below: 1.1 },
    });
    expect(created.status, created.text).toBe(200);
    const alertsId = created.json.id as string;

    // A probe written after it: once a transfer to the probe is delivered, the notifier has both lists.
    const client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
    const probe = devnetNotifierProbe(call, receiver, client);
    await probe.caughtUp();
    // The wallet's history predates the service: its Aave entries show once its discovery is done.
    // Before, an alert carries empty position lists, and one planned again after the restart (the
    // held attempt was never stored) would carry the entries discovered meanwhile.
    await eventually(
      async () => {
        const answer = await call("GET", `/beta/evm/defi/positions/${borrower}?chain_ids=${CHAIN}`);
        const positions = (answer.json.positions ?? []) as ReadonlyArray<Record<string, unknown>>;
        return answer.status === 200 && positions.some((p) => p.token_type === "VariableDebtV3");
      },
      60_000,
      "the borrower's Aave entries",
    );
    // Each price change mined once the block before it is planned, except while the process is down.
    let down = false;
    const weth = aaveOracle(chain, "WETH", () => (down ? Promise.resolve() : probe.caughtUp()));

    const alerts = (): ReadonlyArray<Readonly<Record<string, unknown>>> =>
      receiver.received
        .filter((r) => r.headers["svc-webhook-subscription-id"] === alertsId)
        .flatMap((r) =>
          (r.json.position_alerts ?? []).map((event) => ({ ...event, id: r.headers["webhook-id"] })),
        );
    const crossing = await weth.setPercent(85);
    await eventually(async () => env.held() !== undefined, 60_000, "the alert's first request, held");
    process.kill(service.pid, "SIGKILL");
    down = true;
    // Planned while the process is down or once it is back: still below, no new alert.
    const stillBelow = await weth.setPercent(80);
    // On the same port: the positions in a block planned again carry logo URLs of the service's address.
    service = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
      env: LOCAL_RECEIVER_ENV,
      dataDir: service.dataDir,
      port: Number(new URL(service.url).port),
    });
    down = false;
    try {
      await eventually(async () => alerts().length >= 2, 60_000, "the held alert sent again");
      const [first, again] = alerts();
      expect(again).toEqual(first);
      expect(first).toMatchObject({ block_number: Number(crossing), condition: "health_factor_below" });

      await weth.setPercent(110);
      const second = await weth.setPercent(85);
      await eventually(
        async () => new Set(alerts().map((a) => a.event_id)).size >= 2,
        60_000,
        "the second crossing's alert",
      );
      // One webhook's deliveries go in planning order: an alert of the block planned meanwhile would be first.
      const blocks = [...new Map(alerts().map((a) => [a.event_id, a.block_number])).values()];
      expect(blocks).toEqual([Number(crossing), Number(second)]);
      expect(blocks).not.toContain(Number(stillBelow));
    } finally {
      await service.stop();
    }
  });
});
