import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRpcCounter } from "../../../bench/lib/rpcCounter.js";
import { type AnvilInstance, startAnvil } from "../../../src/devnet/AnvilProcess.js";
import { openBucket } from "../../../src/nats/JetStreamSetup.js";
import { blocksOf, collectChainEvents } from "../../support/chainEvents.js";
import { startTestNats, type TestNats } from "../../support/natsServer.js";
import { type RoleProcess, startRoleProcess } from "../../support/roleProcess.js";
import { PROCESS_DEADLINE_MS } from "../../support/runTs.js";
import { eventually, writeChainsFile } from "../../support/serviceHarness.js";

const LEASE_MS = 3_000;
/** What an ingest process reads from the node only when it follows the chain. */
const BLOCK_READS = ["eth_blockNumber", "eth_getBlockByNumber", "eth_getLogs", "eth_getBlockReceipts"];

let nats: TestNats;
let anvil: AnvilInstance;
let dir: string;
const processes: Array<RoleProcess> = [];
const counters: Array<{ readonly stop: () => Promise<void> }> = [];

const rpc = async <T>(method: string, params: ReadonlyArray<unknown> = []): Promise<T> => {
  const response = await fetch(anvil.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await response.json()) as { result: T }).result;
};
const headNumber = async () => Number.parseInt(await rpc<string>("eth_blockNumber"), 16);

/** An ingest process of its own (NATS user `ingest`, own data directory) reading the chain through its own counting proxy. */
const startIngest = async (name: string) => {
  const counter = await startRpcCounter(anvil.rpcUrl);
  counters.push(counter);
  const home = join(dir, name);
  await mkdir(home);
  const chains = await writeChainsFile(home, [
    { chainId: 1, name: "ethereum", rpcUrl: counter.url, extra: { start_block: 0, finality_depth: 16 } },
  ]);
  const process = startRoleProcess("ingest", {
    NATS_URL: nats.url,
    NATS_USER: "ingest",
    NATS_PASSWORD: nats.credentials.ingest,
    CHAINS_CONFIG: chains,
    DATA_DIR: await mkdtemp(join(home, "data-")),
    INGEST_LEASE_MS: String(LEASE_MS),
    LOG_LEVEL: "info",
  });
  processes.push(process);
  const blockReads = () => BLOCK_READS.reduce((sum, method) => sum + counter.count(method), 0);
  return { process, blockReads };
};

beforeAll(async () => {
  nats = await startTestNats();
  anvil = await startAnvil({ chainId: 1 });
  dir = await mkdtemp(join(tmpdir(), "svc-leases-"));
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  await Promise.all(counters.map((c) => c.stop()));
  await anvil?.stop();
  await nats?.stop();
});

describe("two ingest processes for the same chain", { timeout: 4 * PROCESS_DEADLINE_MS }, () => {
  it("behavior: exactly one follows; after kill -9 of it the other takes over within the lease, with no block published twice or skipped", async () => {
    await rpc("anvil_mine", ["0x5"]);
    const observer = await nats.connectAs("api");
    const { events, stop } = await collectChainEvents(observer);
    const published = () => blocksOf(events).map((b) => b.number);
    // Blocks keep coming all along, as on a live chain.
    let mining: Promise<unknown> = Promise.resolve();
    const miner = setInterval(() => {
      mining = rpc("anvil_mine", ["0x1"]).catch(() => undefined);
    }, 300);
    try {
      // Given a first ingest process following the chain, then a second one for the same chain
      const first = await startIngest("first");
      await first.process.waitFor("chain 1: following it");
      const second = await startIngest("second");
      await second.process.waitFor("running roles: ingest");

      // While the first lives, only it reads the chain and the lease names it; the second stands by
      const before = published().length;
      await eventually(
        async () => published().length >= before + 2 * (LEASE_MS / 300),
        60_000,
        "blocks flowing",
      );
      expect(second.blockReads()).toBe(0);
      expect(second.process.output()).not.toContain("following it");
      expect(first.blockReads()).toBeGreaterThan(0);
      const leases = await Effect.runPromise(openBucket(await nats.connectAs("ingest"), "chain_leases"));
      const lease = JSON.parse((await leases.get("1"))?.string() ?? "{}") as { owner?: string };
      expect(lease.owner).toContain(`:${first.process.pid()}:`);

      // When the first is killed (nothing flushed, its lease not handed back)
      const killedAt = Date.now();
      await first.process.kill();
      await second.process.waitFor("chain 1: following it from block", 60_000);
      const takeoverMs = Date.now() - killedAt;
      console.log(`takeover ${takeoverMs} ms after kill -9 (lease ${LEASE_MS} ms)`);

      // Then the second took over within the lease period (plus one look and a busy machine's slack)
      expect(takeoverMs).toBeLessThan(3 * LEASE_MS);
      await eventually(async () => second.blockReads() > 0, 30_000, "the second reading the chain");
      clearInterval(miner);
      // A block asked for just before the miner stopped is still being mined: the head is after it.
      await mining;
      const head = await headNumber();
      await eventually(async () => published().includes(head), 60_000, `block ${head} published`);

      // And CHAIN_EVENTS holds every block from 0 to the head once, each the node's own
      const numbers = published();
      expect(numbers).toEqual(Array.from({ length: head + 1 }, (_, i) => i));
      for (const block of blocksOf(events)) {
        const canonical = await rpc<{ hash: string }>("eth_getBlockByNumber", [
          `0x${block.number.toString(16)}`,
          false,
        ]);
        expect(block.hash).toBe(canonical.hash.toLowerCase());
      }
    } finally {
      clearInterval(miner);
      await stop();
    }
  });
});
