import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { connect, type NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE } from "../../../bench/replay/chainProfiles.js";
import { type ReplayNode, startReplayNode } from "../../../bench/replay/replayNode.js";
import { ChainEventAssembler } from "../../../src/ingest/chainEventCodec.js";
import { freePort } from "../../../src/lib/freePort.js";
import { startProviderProxy } from "../../support/providerProxy.js";
import { eventually } from "../../support/serviceHarness.js";
import { followedToHead, startTestFollower } from "../../support/testFollower.js";

/*
 * Ingest against a real nats-server whose JetStream store another stream filled: CHAIN_EVENTS
 * refuses the blocks (its byte bound reserves nothing), and the follower says so in its status
 * (which /healthz, the metrics and the TUI show) instead of counting RPC errors, keeps the blocks,
 * and publishes them once the store has room again, without a gap.
 */

const CHAIN_ID = 8453;
const FIRST = 1_000;
let dir: string;
let server: ReturnType<typeof spawn>;
let nc: NatsConnection;
let node: ReplayNode;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-ingest-full-store-"));
  const port = await freePort();
  await writeFile(
    join(dir, "full.conf"),
    `port: ${port}\nhost: 127.0.0.1\njetstream { max_memory_store: 8MB, max_file_store: 48MB, store_dir: "${join(dir, "store")}" }\n`,
  );
  server = spawn("nats-server", ["-c", join(dir, "full.conf")], { stdio: "ignore" });
  for (let attempt = 0; nc === undefined; attempt++)
    nc = await connect({ servers: `127.0.0.1:${port}` }).catch(async (error: unknown) => {
      if (attempt > 100) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
      return undefined as unknown as NatsConnection;
    });
  node = await startReplayNode({ profile: BASE, chainId: CHAIN_ID, firstBlock: FIRST, backlog: 1 });
});

afterAll(async () => {
  await nc?.close();
  server?.kill();
  await node?.stop();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe("ingest and a full JetStream store", { timeout: 90_000 }, () => {
  it("behavior: blocks refused by a full store are named as such, kept, and published once there is room", async () => {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: "CHAIN_EVENTS", subjects: ["chain.>"], max_bytes: 16 * 1024 ** 2 });
    await jsm.streams.add({ name: "OTHER", subjects: ["other.>"] });
    const js = jetstream(nc);
    // The other stream takes the whole store before the chain is followed.
    for (let full = false; !full; )
      await js.publish("other.x", new Uint8Array(512 * 1024)).catch(() => {
        full = true;
      });
    const follower = startTestFollower({ url: node.url, js, chainId: CHAIN_ID, pollMs: 100 });
    const { status } = follower;
    try {
      await eventually(async () => status.store_full === true, 30_000, "the follower names the full store");
      expect(status.last_error).toMatch(/insufficient resources/);
      expect(status.rpc_errors).toBe(0);
      const refusedAt = node.head();
      expect((await jsm.streams.info("CHAIN_EVENTS")).state.messages).toBe(0);
      // Room again: every block since the follower started is published, in order, none missing.
      await jsm.streams.purge("OTHER");
      await eventually(
        async () => status.store_full === false && (status.processed ?? 0) > refusedAt,
        30_000,
        "blocks published again",
      );
      // Stopped first, so that the stream and the follower's last block are read at one moment:
      // the chain keeps coming, and a block published between the two reads would be no loss.
      await follower.interrupt();
      const state = (await jsm.streams.info("CHAIN_EVENTS")).state;
      const numbers: Array<number> = [];
      for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
        const message = await jsm.streams.getMessage("CHAIN_EVENTS", { seq });
        const event = new ChainEventAssembler().push({
          subject: message!.subject,
          data: message!.data,
          headers: message!.header,
        });
        numbers.push((event as { number: number }).number);
      }
      // Consecutive from the first block the follower read to the last it reports: nothing lost.
      expect(numbers).toEqual(numbers.map((_, i) => numbers[0]! + i));
      // The stream holds every block the follower reports, and at most the batch it was stopped
      // in the middle of (published, not yet saved as its checkpoint) beyond it.
      expect(numbers.at(-1)).toBeGreaterThanOrEqual(status.processed!);
      expect(numbers.at(-1)! - status.processed!).toBeLessThanOrEqual(32);
      expect(numbers[0]).toBeLessThanOrEqual(refusedAt);
    } finally {
      await follower.stop();
    }
  });

  it("behavior: moving past blocks its node pruned while the store is full does not count as the store taking blocks", async () => {
    const jsm = await jetstreamManager(nc);
    const js = jetstream(nc);
    let clock = 1_800_000_000_000;
    const own = await startReplayNode({
      profile: BASE,
      chainId: 10,
      firstBlock: 7_000,
      backlog: 1,
      now: () => clock,
    });
    const reth = await startProviderProxy({ target: own.url, style: "reth", prunedWindow: 40 });
    const follower = startTestFollower({ url: reth.url, js, chainId: 10, pollMs: 100 });
    const { status } = follower;
    // Every value the follower gives store_full, in order: a false between two trues is a false
    // "CHAIN_EVENTS takes its blocks again" in the log and /healthz.
    const storeFull: Array<boolean | undefined> = [];
    let current = status.store_full;
    Object.defineProperty(status, "store_full", {
      get: () => current,
      set: (value: boolean | undefined) => {
        storeFull.push(value);
        current = value;
      },
    });
    try {
      await followedToHead(status, own.head());
      for (let full = false; !full; )
        await js.publish("other.x", new Uint8Array(512 * 1024)).catch(() => {
          full = true;
        });
      clock += BASE.blockTimeMs;
      await eventually(async () => status.store_full === true, 30_000, "the follower names the full store");
      // The chain runs past the node's window while the block waits for room.
      clock += 100 * BASE.blockTimeMs;
      const head = own.head();
      await eventually(async () => status.blocks_skipped !== undefined, 30_000, "the pruned blocks skipped");
      const seen = storeFull.length;
      await eventually(async () => storeFull.length > seen, 30_000, "a publish after the skip");
      expect(storeFull).not.toContain(false);
      expect(status.blocks_skipped).toEqual({ from: head - 100, to: head - 41 });
      await jsm.streams.purge("OTHER");
      await eventually(
        async () => status.store_full === false && status.processed === head,
        30_000,
        "blocks published again",
      );
    } finally {
      await follower.stop();
      await reth.stop();
      await own.stop();
    }
  });
});
