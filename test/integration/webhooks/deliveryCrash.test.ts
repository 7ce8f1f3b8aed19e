import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServiceProcess } from "../../../bench/lib/benchEnv.js";
import { startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { startNotifierBarrier } from "../../support/notifierBarrier.js";
import { PROCESS_DEADLINE_MS } from "../../support/runTs.js";
import { eventually, writeChainsFile } from "../../support/serviceHarness.js";
import { chainPublisher, syntheticBlock } from "../../support/syntheticBlocks.js";
import { addressOf, callerFor, LOCAL_RECEIVER_ENV, WEBHOOKS } from "../../support/webhookEnv.js";
import { type Receiver, startReceiver } from "../../support/webhookReceiver.js";

let nats: TestNats;
let anvil: Awaited<ReturnType<typeof startAnvil>>;
let chainsConfig: string;
let receiver: Receiver;
/**
 * Answers within SLOW_RECEIVER_MS, so its deliveries are sent before they are
 * stored; it never answers its fourth request, and the kill lands while that
 * one is held unstored (before FIRST_ATTEMPT_WAIT_MS has it stored).
 */
let quickReceiver: Receiver;
const QUICK_HELD = 3;

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  chainsConfig = await writeChainsFile(await mkdtemp(join(tmpdir(), "svc-crash-")), [
    { chainId: 1, name: "ethereum", rpcUrl: anvil.rpcUrl },
  ]);
  // Slow enough that a kill lands mid-delivery.
  receiver = await startReceiver((_, res) => {
    setTimeout(() => res.writeHead(200).end(), 40);
  });
  quickReceiver = await startReceiver((_, res, index) => {
    if (index !== QUICK_HELD) setTimeout(() => res.writeHead(200).end(), 5);
  });
});

afterAll(async () => {
  await receiver?.stop();
  await quickReceiver?.stop();
  await anvil?.stop();
  await nats?.stop();
});

// Two starts of the service's own process, then deliveries through a kill and a broker restart.
describe("webhook deliveries survive crashes", { timeout: 3 * PROCESS_DEADLINE_MS }, () => {
  it("behavior: kill -9 of the service and a nats-server restart lose no event, and ids stay stable", async () => {
    let service = await startServiceProcess(nats, chainsConfig, { env: LOCAL_RECEIVER_ENV });
    const { createKey } = await import("../../../src/api/keys/KeyStore.js");
    const { openBucket } = await import("../../../src/nats/JetStreamSetup.js");
    const { Effect } = await import("effect");
    const admin = await nats.connectAs("admin");
    const { key } = await Effect.runPromise(
      createKey(
        {
          keys: await Effect.runPromise(openBucket(admin, "keys")),
          teams: await Effect.runPromise(openBucket(admin, "teams")),
        },
        "crash",
      ),
    );
    const call = callerFor(service.url, key);
    const wallet = addressOf(0xc0ffee);
    const webhookTo = async (name: string, url: string) => {
      const answer = await call("POST", WEBHOOKS, { name, url, type: "transactions", addresses: [wallet] });
      expect(answer.status).toBe(200);
      return answer;
    };
    const created = await webhookTo("crash", receiver.url);
    const quick = await webhookTo("crash-quick", quickReceiver.url);
    const publish = chainPublisher(await nats.connectAs("ingest"));
    // Blocks from the first one on must match: wait until the notifier's address book has the wallet.
    let probeNumber = 8_000_000;
    const barrier = await startNotifierBarrier(call, publish, () => probeNumber++);
    await barrier.pass();
    await barrier.stop();
    const expected: Array<string> = [];
    const send = async (count: number, from: number) => {
      for (let i = 0; i < count; i++) {
        const block = syntheticBlock(1, from + i, wallet, addressOf(1), "crash");
        // Right after a broker restart the client may still be reconnecting: retry as ingestion does.
        for (let attempt = 0; ; attempt++) {
          try {
            await publish.block(block);
            break;
          } catch (error) {
            if (attempt > 40) throw error;
            await new Promise((r) => setTimeout(r, 250));
          }
        }
        expected.push(block.transactions[0].hash);
      }
    };

    await send(30, 9_000_000);
    await eventually(
      async () => receiver.received.length >= 1 && quickReceiver.received.length > QUICK_HELD,
      30_000,
      "some deliveries",
    );
    process.kill(service.pid, "SIGKILL");
    await send(10, 9_000_030);
    service = await startServiceProcess(nats, chainsConfig, {
      env: LOCAL_RECEIVER_ENV,
      dataDir: service.dataDir,
    });

    await nats.restart(500);
    await send(10, 9_000_040);
    for (const [name, r] of [
      ["slow", receiver],
      ["quick", quickReceiver],
    ] as const) {
      const received = () => new Set(r.events().map((e) => e.hash as string));
      await eventually(
        async () => expected.every((h) => received().has(h)),
        40_000,
        `every event after the faults, to the ${name} receiver`,
      ).catch((error) => {
        const missing = expected.map((h, i) => (received().has(h) ? -1 : i)).filter((i) => i >= 0);
        throw new Error(`${String(error)}; missing blocks ${missing.join(",")} of ${expected.length}`);
      });
    }
    // The request held unanswered at the kill counts as received on arrival: it must come again.
    const heldId = quickReceiver.received[QUICK_HELD]!.headers["webhook-id"];
    await eventually(
      async () =>
        quickReceiver.received.slice(QUICK_HELD + 1).some((r) => r.headers["webhook-id"] === heldId),
      40_000,
      "the delivery held at the kill, sent again",
    );
    await service.stop();

    expect(receiver.unverified(created.json.secret as string)).toEqual([]);
    expect(quickReceiver.unverified(quick.json.secret as string)).toEqual([]);
    // A repeat of a delivery carries the same webhook-id and body.
    const bodies = new Map<string, string>();
    for (const r of [...receiver.received, ...quickReceiver.received]) {
      const id = r.headers["webhook-id"]!;
      expect(bodies.get(id) ?? r.body).toBe(r.body);
      bodies.set(id, r.body);
    }
  });
});
