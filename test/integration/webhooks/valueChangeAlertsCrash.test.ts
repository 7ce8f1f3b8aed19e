import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceProcess } from "../../../bench/lib/benchEnv.js";
import { createKey } from "../../../src/api/keys/KeyStore.js";
import { approveMax } from "../../../src/devnet/ammActions.js";
import { chainClient, receiptOf } from "../../../src/devnet/ChainClient.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";
import { startAlertCrashEnv } from "../../support/alertCrashEnv.js";
import { adminBuckets } from "../../support/anvilService.js";
import type { TestDevnet } from "../../support/devnetFixture.js";
import { devnetNotifierProbe } from "../../support/devnetNotifierProbe.js";
import type { TestNats } from "../../support/natsServer.js";
import { PROCESS_DEADLINE_MS } from "../../support/runTs.js";
import { eventually } from "../../support/serviceHarness.js";
import { callerFor, LOCAL_RECEIVER_ENV, WEBHOOKS } from "../../support/webhookEnv.js";
import type { Receiver } from "../../support/webhookReceiver.js";
import { buyWeth, supplierAndPair } from "../../support/wethUsdcSwaps.js";

/**
 * A `value_change_pct` alert through a kill -9 of the service's own process: the alert's first
 * request is held unanswered when the process dies; once it is started again (its footprints, in
 * memory, gone; its baselines, in the bucket, kept) the alert comes again (same event, same
 * webhook-id), the small move made while it was down alerts nothing, and a later move past the
 * threshold of the alerted value alerts once.
 */

const CHAIN = 8453;
const THRESHOLD = 5;

let env: Awaited<ReturnType<typeof startAlertCrashEnv>>;
let nats: TestNats;
let devnet: TestDevnet;
let receiver: Receiver;

beforeAll(async () => {
  env = await startAlertCrashEnv();
  ({ nats, devnet, receiver } = env);
});

afterAll(() => env?.stop());

describe("value change alerts survive a crash", { timeout: 3 * PROCESS_DEADLINE_MS }, () => {
  it("behavior: kill -9 between the alert's block and its delivery loses nothing and sends no extra alert", async () => {
    let service = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
      env: LOCAL_RECEIVER_ENV,
    });
    const admin = await nats.connectAs("admin");
    const { key } = await Effect.runPromise(createKey(await adminBuckets(admin), "crash"));
    const chain = devnet.manifest.chains.find((c) => c.chain_id === CHAIN)!;
    const client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
    const cast = supplierAndPair(chain);
    const { supplier, weth, usdc, router } = cast;
    const deployer = roleAddress("deployer");
    await receiptOf(client, await approveMax(client, deployer, usdc, router));

    /** The supplier's aWETH value as the running service's positions endpoint shows it (at `block`). */
    const valueAt = async (block?: bigint) => {
      let value: number | undefined;
      await eventually(
        async () => {
          const at = block === undefined ? "" : `&block_number=${block}`;
          const answer = await fetch(
            `${service.url}/beta/evm/defi/positions/${supplier}?chain_ids=${CHAIN}${at}`,
            { headers: { "x-svc-api-key": key } },
          );
          const text = await answer.text();
          if (answer.status !== 200) return false;
          const body = JSON.parse(text) as { positions: ReadonlyArray<Record<string, unknown>> };
          value = body.positions.find((p) => p.type === "Tokenized" && p.underlying_token === weth)
            ?.usd_value as number | undefined;
          // An answer without it: the wallet's discovery is still under way.
          return value !== undefined;
        },
        60_000,
        "the supplier's aWETH entry",
      );
      return value!;
    };
    /** Swaps until the value is `pct` percent above `from`; the block where it first is. */
    const raiseUntil = async (from: number, pct: number) => {
      for (let i = 0; i < 20; i++) {
        // The block before each swap planned first, so the alert names the swap's block.
        await probe.caughtUp();
        const block = await buyWeth(client, cast, 0.03);
        if (((await valueAt(block)) - from) / Math.abs(from) >= pct / 100) return block;
      }
      throw new Error("the supplier's aWETH value never rose that far");
    };

    const call = callerFor(service.url, key);
    const created = await call("POST", WEBHOOKS, {
      name: "crash",
      url: receiver.url,
      type: "positions",
      addresses: [supplier],
      chain_ids: [CHAIN],
      conditions: { value_change_pct: THRESHOLD },
    });
    expect(created.status, created.text).toBe(200);
    const alertsId = created.json.id as string;
    // A probe written after it: once a transfer to the probe is delivered, the notifier has both lists.
    const probe = devnetNotifierProbe(call, receiver, client);
    await probe.caughtUp();
    const reference = await valueAt();

    const alerts = (): ReadonlyArray<Readonly<Record<string, unknown>>> =>
      receiver.received
        .filter((r) => r.headers["svc-webhook-subscription-id"] === alertsId)
        .flatMap((r) =>
          (r.json.position_alerts ?? []).map((event) => ({ ...event, id: r.headers["webhook-id"] })),
        );
    const crossing = await raiseUntil(reference, THRESHOLD);
    await eventually(async () => env.held() !== undefined, 60_000, "the alert's first request, held");
    process.kill(service.pid, "SIGKILL");
    // Planned while the process is down or once it is back: about 0.2 %, no new alert.
    const small = await buyWeth(client, cast, 0.001);
    // On the same port: the positions in a block planned again carry logo URLs of the service's address.
    service = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
      env: LOCAL_RECEIVER_ENV,
      dataDir: service.dataDir,
      port: Number(new URL(service.url).port),
    });
    try {
      await eventually(async () => alerts().length >= 2, 60_000, "the held alert sent again");
      const [first, again] = alerts();
      expect(again).toEqual(first);
      expect(first).toMatchObject({ block_number: Number(crossing), condition: "value_change_pct" });

      const second = await raiseUntil(first!.usd_value as number, THRESHOLD);
      await eventually(
        async () => new Set(alerts().map((a) => a.event_id)).size >= 2,
        60_000,
        "the second move's alert",
      );
      // One webhook's deliveries go in planning order: an alert of a block planned meanwhile would be first.
      const blocks = [...new Map(alerts().map((a) => [a.event_id, a.block_number])).values()];
      expect(blocks).toEqual([Number(crossing), Number(second)]);
      expect(blocks).not.toContain(Number(small));
      // Measured from the alerted value, kept through the crash.
      expect(alerts().at(-1)).toMatchObject({ usd_value_before: first!.usd_value });
    } finally {
      await service.stop();
    }
  });
});
