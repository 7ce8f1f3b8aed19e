import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { Effect, Fiber } from "effect";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { makeChainRegistry } from "../../../src/chains/ChainRegistry.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { NOTIFIER_DURABLE, runNotifier } from "../../../src/webhooks/notifier/Notifier.js";
import { openNotifierConsumer } from "../../../src/webhooks/notifier/notifierConsumer.js";
import type { QueuedDelivery } from "../../../src/webhooks/outbox/QueuedDelivery.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { withDeafSubscriptions } from "../../support/deafSubscriptions.js";
import { memoryBlockRecords } from "../../support/memoryBlockRecords.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { block, planner } from "../../support/notifierPlanning.js";
import { eventually } from "../../support/serviceHarness.js";
import { startTcpCut } from "../../support/tcpCut.js";

/*
 * The notifier lets the shared CHAIN_EVENTS consumer go while nothing can be planned (no address
 * watched, no block recorded), against a real nats-server: the blocks it would have acknowledged
 * unread are never handed out, a webhook's address brings it back, and a notifier still planning
 * when the consumer goes loses no block.
 */

let nats: TestNats;
const connections: Array<NatsConnection> = [];
const running: Array<Fiber.RuntimeFiber<unknown, unknown>> = [];

beforeAll(async () => {
  nats = await startTestNats();
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((fiber) => Effect.runPromise(Fiber.interrupt(fiber))));
  const jsm = await jetstreamManager(await connectAs("api"));
  await jsm.consumers.delete("CHAIN_EVENTS", NOTIFIER_DURABLE).catch(() => undefined);
});

afterAll(async () => {
  await Promise.all(connections.map((nc) => nc.close()));
  await nats?.stop();
});

const connectAs = async (user: "api" | "ingest") => {
  const nc = await nats.connectAs(user);
  connections.push(nc);
  return nc;
};

let nextNumber = 1_000;
/** Publishes the next block of chain 1 paying the watched wallet, as ingestion would. */
const publishBlock = async () => {
  const js = jetstream(await connectAs("ingest"));
  const next: ChainBlock = block(nextNumber++, true);
  await js.publish("chain.1.block", JSON.stringify(next), { msgID: `1:${next.hash}` });
  return next.number;
};

/** A notifier of its own, with webhook `W` watching the wallet while `watched.count` is 1. */
const startNotifier = async (
  options: {
    readonly resumeLookbackMs?: number;
    readonly holdPlanning?: () => Promise<void>;
    /** The notifier's own connection (by default a new one as `api`). */
    readonly nc?: NatsConnection;
  } = {},
) => {
  const plans = planner(memoryBlockRecords().store);
  plans.watched.count = 0;
  const planned: Array<number> = [];
  const fiber = Effect.runFork(
    runNotifier({
      nc: options.nc ?? (await connectAs("api")),
      registry: makeChainRegistry({ chains: [testChainConfig({ finality_depth: 2 })] } as never),
      deps: { ...plans.deps, now: () => Date.now() },
      enqueue: async (deliveries: ReadonlyArray<QueuedDelivery>) => {
        for (const d of deliveries) planned.push(d.block_number);
        await options.holdPlanning?.();
        return [];
      },
      markDelivered: async () => undefined,
      idlePauseMs: 0,
      ...(options.resumeLookbackMs === undefined ? {} : { resumeLookbackMs: options.resumeLookbackMs }),
    }),
  );
  running.push(fiber);
  return { planned, watched: plans.watched };
};

const apiJsm = async () => jetstreamManager(await connectAs("api"));

/** The shared consumer as an earlier run of the service leaves it. */
const leftByEarlierRun = async () => {
  await openNotifierConsumer(await apiJsm(), undefined);
};

const consumerExists = async () =>
  (await jetstreamManager(await connectAs("api"))).consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE).then(
    () => true,
    () => false,
  );

/**
 * A notifier planning a block with three more behind it when `meanwhile` happens to the consumer:
 * every block behind is planned, in order, none skipped. With `nc`, the notifier uses that
 * connection, and one more block is published once it is released: the first the notifier is handed.
 */
const consumerLostWhilePlanning = async (
  meanwhile: (jsm: Awaited<ReturnType<typeof apiJsm>>) => Promise<void>,
  nc?: NatsConnection,
) => {
  let release = () => {};
  let holding = false;
  const notifier = await startNotifier({
    holdPlanning: () => (holding ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()),
    ...(nc === undefined ? {} : { nc }),
  });
  notifier.watched.count = 1;
  await eventually(consumerExists, 10_000, "the consumer");
  holding = true;
  const held = await publishBlock();
  await eventually(async () => notifier.planned.includes(held), 10_000, "a block to be in planning");
  const behind = [await publishBlock(), await publishBlock(), await publishBlock()];
  try {
    await meanwhile(await apiJsm());
  } finally {
    holding = false;
    release();
  }
  const after = nc === undefined ? [] : [await publishBlock()];
  await eventually(
    async () => [...behind, ...after].every((n) => notifier.planned.includes(n)),
    10_000,
    "every block behind it to be planned",
  );
  expect(notifier.planned).toEqual([held, ...behind, ...after]);
};

/** Publishes blocks (each one the notifier reads, or acknowledges unread) until the consumer is let go. */
const untilLetGoAsBlocksCome = () =>
  eventually(
    async () => {
      await publishBlock();
      return !(await consumerExists());
    },
    20_000,
    "the consumer to be let go",
  );

describe("the webhook notifier with nothing to plan", () => {
  it("behavior: takes no block while nothing is watched, and plans those published once an address is", async () => {
    await leftByEarlierRun();
    const notifier = await startNotifier({ resumeLookbackMs: 0 });
    await eventually(async () => !(await consumerExists()), 10_000, "the consumer to be let go");
    const whilePaused = [await publishBlock(), await publishBlock()];
    notifier.watched.count = 1;
    await eventually(consumerExists, 10_000, "the consumer to be created again");
    const after = await publishBlock();
    await eventually(async () => notifier.planned.includes(after), 10_000, "the new block to be planned");
    expect(notifier.planned).toEqual([after]);
    expect(whilePaused.some((n) => notifier.planned.includes(n))).toBe(false);
  });

  it("behavior: a block published just before the notifier saw the address is planned", async () => {
    await leftByEarlierRun();
    const notifier = await startNotifier();
    await eventually(async () => !(await consumerExists()), 10_000, "the consumer to be let go");
    // A webhook made, then a block paying it at once: the paused notifier sees the address only later.
    const published = await publishBlock();
    notifier.watched.count = 1;
    await eventually(async () => notifier.planned.includes(published), 10_000, "that block to be planned");
    expect(notifier.planned).toEqual([published]);
  });

  it("behavior: lets the consumer go once nothing is watched and every recorded block is dropped", async () => {
    const notifier = await startNotifier();
    notifier.watched.count = 1;
    await eventually(consumerExists, 10_000, "the consumer");
    const first = await publishBlock();
    await eventually(async () => notifier.planned.includes(first), 10_000, "a block to be planned");
    notifier.watched.count = 0;
    // The block stays recorded (for a reorg's retraction) until it is finality_depth blocks deep.
    await untilLetGoAsBlocksCome();
    expect(notifier.planned).toEqual([first]);
  });

  it("behavior: a notifier still planning when its consumer is deleted creates it again where it was", async () => {
    // Another notifier let it go.
    await consumerLostWhilePlanning(async (jsm) => {
      await jsm.consumers.delete("CHAIN_EVENTS", NOTIFIER_DURABLE);
    });
  });

  it("behavior: a consumer made from a time while a notifier still plans is replaced, so no block behind is skipped", async () => {
    // Another notifier, its address book behind, let the consumer go and, resuming, made one from now.
    await consumerLostWhilePlanning(async (jsm) => {
      await jsm.consumers.delete("CHAIN_EVENTS", NOTIFIER_DURABLE);
      await openNotifierConsumer(jsm, { time: Date.now() });
    });
  });

  it("behavior: a consumer made again from a time while the notifier's client was away is replaced, so no block behind is skipped", async () => {
    // The client misses the deletion's notice while disconnected, and nats.js, reconnecting, finds a
    // consumer of the same name and pulls from it.
    const relay = await startTcpCut(nats.url);
    try {
      const nc = await nats.connectAs("api", {
        servers: relay.url,
        reconnectTimeWait: 50,
        maxReconnectAttempts: -1,
      });
      connections.push(nc);
      const statuses: Array<string> = [];
      void (async () => {
        for await (const status of nc.status()) statuses.push(status.type);
      })();
      await consumerLostWhilePlanning(async (jsm) => {
        relay.cut();
        await eventually(
          async () => statuses.includes("disconnect"),
          10_000,
          "the notifier's client to be cut off",
        );
        await jsm.consumers.delete("CHAIN_EVENTS", NOTIFIER_DURABLE);
        await openNotifierConsumer(jsm, { time: Date.now() });
        relay.restore();
        await eventually(
          async () => statuses.includes("reconnect"),
          10_000,
          "the notifier's client to reconnect",
        );
      }, nc);
    } finally {
      await relay.stop();
    }
  });

  it("behavior: a consumer made again from a time while the notifier heard nothing from the server is replaced, so no block behind is skipped", async () => {
    // A consumer's leader lost: the notifier, still connected, misses blocks and the deletion's notice,
    // and nats.js, after two missed heartbeats, looks the consumer up by name and pulls from it.
    const deaf = withDeafSubscriptions(await connectAs("api"));
    const notifier = await startNotifier({ nc: deaf.nc });
    notifier.watched.count = 1;
    await eventually(consumerExists, 10_000, "the consumer");
    const first = await publishBlock();
    await eventually(async () => notifier.planned.includes(first), 10_000, "a block to be planned");
    deaf.deafen();
    const behind = [await publishBlock(), await publishBlock()];
    const jsm = await apiJsm();
    await jsm.consumers.delete("CHAIN_EVENTS", NOTIFIER_DURABLE);
    const remade = await openNotifierConsumer(jsm, { time: Date.now() });
    await eventually(
      async () => {
        const info = await jsm.consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE);
        return info.created === remade.created && info.num_waiting > 0;
      },
      20_000,
      "the notifier's client to pull from the consumer made again",
    );
    deaf.hear();
    const after = await publishBlock();
    await eventually(
      async () => [...behind, after].every((n) => notifier.planned.includes(n)),
      10_000,
      "every block behind to be planned",
    );
    expect(notifier.planned).toEqual([first, ...behind, after]);
  }, 40_000);

  it("behavior: does not let the consumer go while another notifier's block is in flight", async () => {
    await leftByEarlierRun();
    await publishBlock();
    const shared = await jetstream(await connectAs("api")).consumers.get("CHAIN_EVENTS", NOTIFIER_DURABLE);
    const inFlight = await shared.next({ expires: 5_000 });
    expect(inFlight).not.toBeNull();
    await startNotifier();
    // With nothing watched, it joins rather than deleting the consumer: its pull waits behind that block.
    await eventually(
      async () => (await (await apiJsm()).consumers.info("CHAIN_EVENTS", NOTIFIER_DURABLE)).num_waiting > 0,
      10_000,
      "the notifier's pull",
    );
    expect(await inFlight!.ackAck()).toBe(true);
    // Once nothing waits in it, the consumer is let go.
    await untilLetGoAsBlocksCome();
  });
});
