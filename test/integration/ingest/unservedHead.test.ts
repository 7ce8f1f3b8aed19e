import { createServer, type Server } from "node:http";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Effect, Exit, Fiber, Scope } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import { followChain } from "../../../src/ingest/ChainFollower.js";
import { initialStatus } from "../../../src/ingest/FollowerStatus.js";
import { acquireLease } from "../../../src/ingest/lease/ChainLease.js";
import { startBareNats } from "../../support/bareNats.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { directChainRpc } from "../../support/chainRpc.js";
import { memoryBucket } from "../../support/memoryLeaseBucket.js";
import { eventually } from "../../support/serviceHarness.js";

/*
 * A node whose head is ahead of the blocks it serves: eth_blockNumber names a block that
 * eth_getBlockByNumber answers null for, as a provider's load-balanced backends do when they
 * disagree. The follower must wait for its next poll, not read the block again in a tight loop
 * (each read spends the provider's rate limit), and take the block once it is served.
 */

const CHAIN_ID = 8453;
const POLL_MS = 250;
let bare: Awaited<ReturnType<typeof startBareNats>>;
let node: ReplayNode;
let proxy: Server;
let proxyUrl: string;
/** The block the proxy answers null for, and how often it was asked for it. */
let hidden: number | undefined;
let askedForHidden = 0;
/** The replay node's clock: its head moves only when the test moves it. */
let clock = 1_800_000_000_000;

/** Forwards JSON-RPC to the replay node, answering null for `hidden` by number. */
const startProxy = async () => {
  proxy = createServer(async (req, res) => {
    const chunks: Array<Buffer> = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const call = JSON.parse(body) as { id: number; method: string; params: ReadonlyArray<unknown> };
    if (
      !Array.isArray(call) &&
      call.method === "eth_getBlockByNumber" &&
      hidden !== undefined &&
      call.params[0] === `0x${hidden.toString(16)}`
    ) {
      askedForHidden++;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ jsonrpc: "2.0", id: call.id, result: null }));
      return;
    }
    const answer = await fetch(node.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    res.setHeader("content-type", "application/json");
    res.end(await answer.text());
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const address = proxy.address();
  if (address === null || typeof address === "string") throw new Error("no proxy address");
  proxyUrl = `http://127.0.0.1:${address.port}`;
};

beforeAll(async () => {
  bare = await startBareNats();
  node = await startReplayNode({
    profile: BASE,
    chainId: CHAIN_ID,
    firstBlock: 5_000,
    backlog: 1,
    now: () => clock,
  });
  await startProxy();
});

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  await node?.stop();
  await bare?.stop();
});

describe("ingest and a head the node does not serve yet", { timeout: 60_000 }, () => {
  it("behavior: the follower polls for the block instead of asking again at once, and takes it once served", async () => {
    const jsm = await jetstreamManager(bare.nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"] });
    const { rpc, close } = directChainRpc(proxyUrl, { chainId: CHAIN_ID, timeoutMs: 10_000 });
    const status = initialStatus(CHAIN_ID, "base");
    const scope = Effect.runSync(Scope.make());
    const follower = Effect.runFork(
      Effect.gen(function* () {
        const lease = yield* acquireLease(memoryBucket().view().store, `chain.${CHAIN_ID}`, "test", {
          leaseMs: 60_000,
        });
        return yield* followChain({
          chain: testChainConfig({ chain_id: CHAIN_ID, name: "base", rpc_url: proxyUrl }),
          rpc,
          capabilities: Effect.succeed({ blockReceipts: true, traces: false, complete: true }),
          js: jetstream(bare.nc),
          lease,
          legacyCheckpoint: undefined,
          status,
          pollMs: POLL_MS,
          historyRange: 500,
          prefetch: 8,
          catchUpRange: 32,
          maxPayload: 1024 * 1024,
        });
      }).pipe(Scope.extend(scope)),
    );
    try {
      const start = node.head();
      await eventually(
        async () => status.processed === start && status.mode === "live",
        30_000,
        "the follower at the head",
      );
      // The next block shows in eth_blockNumber, and eth_getBlockByNumber answers null for it.
      hidden = start + 1;
      clock += BASE.blockTimeMs;
      expect(node.head()).toBe(hidden);
      const waitedMs = 2_000;
      await new Promise((resolve) => setTimeout(resolve, waitedMs));
      expect(status.processed).toBe(start);
      // About one read per poll; read again at once, it was asked thousands of times.
      expect(askedForHidden).toBeGreaterThan(0);
      expect(askedForHidden).toBeLessThanOrEqual(2 * (waitedMs / POLL_MS) + 2);
      // Served now: the follower takes it at its next poll.
      hidden = undefined;
      await eventually(async () => status.processed === start + 1, 10_000, "the block once served");
    } finally {
      await Effect.runPromise(Fiber.interrupt(follower));
      await Effect.runPromise(Scope.close(scope, Exit.void));
      await close();
    }
  });
});
