import { createServer, type Server } from "node:http";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import { MAX_RESPONSE_BYTES } from "../../../src/chains/rpc/jsonRpcExchange.js";
import { startBareNats } from "../../support/bareNats.js";
import { blocksOf, collectChainEvents, collectedThrough } from "../../support/chainEvents.js";
import { followedToHead, startTestFollower } from "../../support/testFollower.js";

/*
 * A block whose trace is larger than any answer the service reads (a transaction of huge internal
 * calls: hundreds of MB of callTracer output), against a real HTTP node in front of the replay
 * node and a real nats-server: the follower reads that block without its trace and goes on,
 * instead of asking for it again for good while the chain runs away.
 */

const CHAIN_ID = 8453;
let bare: Awaited<ReturnType<typeof startBareNats>>;
let node: ReplayNode;
let front: Server;
let frontUrl: string;
/** The block hash whose trace the front answers with more than MAX_RESPONSE_BYTES. */
let hugeTraceOf: string | undefined;
let clock = 1_800_000_000_000;

beforeAll(async () => {
  bare = await startBareNats();
  node = await startReplayNode({
    profile: { ...BASE, traces: true },
    chainId: CHAIN_ID,
    firstBlock: 5_000,
    backlog: 1,
    now: () => clock,
  });
  front = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", async () => {
      const sent = JSON.parse(body) as
        | { method?: string; params?: ReadonlyArray<unknown> }
        | ReadonlyArray<unknown>;
      const asks = Array.isArray(sent) ? sent : [sent];
      const huge = asks.some(
        (ask) =>
          (ask as { method?: string }).method === "debug_traceBlockByHash" &&
          (ask as { params?: ReadonlyArray<unknown> }).params?.[0] === hugeTraceOf,
      );
      if (huge) {
        // A body over the cap, sent a MiB at a time: the reader must stop it, not gather it.
        res.writeHead(200, { "content-type": "application/json" });
        const chunk = Buffer.alloc(1024 * 1024, 32);
        let left = MAX_RESPONSE_BYTES / chunk.length + 2;
        const more = () => {
          while (left-- > 0) if (!res.write(chunk)) return void res.once("drain", more);
          res.end();
        };
        res.on("close", () => {
          left = 0;
        });
        more();
        return;
      }
      const answer = await fetch(node.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      res.writeHead(answer.status, { "content-type": "application/json" }).end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => front.listen(0, "127.0.0.1", resolve));
  frontUrl = `http://127.0.0.1:${(front.address() as { port: number }).port}`;
  const jsm = await jetstreamManager(bare.nc);
  await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"] });
});

afterAll(async () => {
  front?.closeAllConnections();
  await new Promise((resolve) => front?.close(resolve));
  await node?.stop();
  await bare?.stop();
});

describe("a block whose trace is larger than any answer read", { timeout: 60_000 }, () => {
  it("edge: is published without its internal transfers, said so, and the chain goes on traced", async () => {
    const follower = startTestFollower({
      url: frontUrl,
      js: jetstream(bare.nc),
      chainId: CHAIN_ID,
      pollMs: 100,
      traces: true,
    });
    const { status } = follower;
    const events = await collectChainEvents(bare.nc);
    try {
      const start = await followedToHead(status, node.head());
      // Both at once (no await between): the follower cannot read the block before its trace is huge.
      clock += 5 * BASE.blockTimeMs;
      hugeTraceOf = node.block(start + 1).hash;
      const head = node.head();
      await collectedThrough(status, events.events, CHAIN_ID, head, 30_000);
      expect(status.blocks_untraced).toEqual({ from: start + 1, to: start + 1 });
      const blocks = blocksOf(events.events).filter(
        (block) => block.chain_id === CHAIN_ID && block.number > start,
      );
      expect(blocks.map((block) => block.number)).toEqual(
        Array.from({ length: head - start }, (_, i) => start + 1 + i),
      );
      for (const block of blocks)
        expect(block.internal_transfers === null, `block ${block.number}`).toBe(block.number === start + 1);
    } finally {
      await follower.stop();
      await events.stop();
    }
  });
});
