import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import type { FollowerStatus } from "../../src/ingest/FollowerStatus.js";
import { openBucket } from "../../src/nats/JetStreamSetup.js";
import { startAnvil } from "../../test/support/anvil.js";
import { blocksOf, collectChainEvents } from "../../test/support/chainEvents.js";
import { startTestNats } from "../../test/support/natsServer.js";
import { startProviderProxy } from "../../test/support/providerProxy.js";
import { writeChainsFile } from "../../test/support/serviceHarness.js";
import { describeLatency, longestGap } from "./answerGaps.js";
import { startServiceProcess } from "./benchEnv.js";
import { mineLogHistory, mineOneLogBlock } from "./logChain.js";
import { nodeRequest } from "./nodeRequest.js";

const CHAIN_ID = 31337;
/** One block every 100 ms: a chain faster than any the service follows, so a gap shows. */
const BLOCK_EVERY_MS = 100;
const HISTORY_BLOCKS = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

const waitFor = async (check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) => {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline)
      throw new Error(`failover ingest: ${what} not within ${timeoutMs / 1000} s`);
    await sleep(20);
  }
};

/**
 * Figure 3, ingest: an ingest process following a bare anvil through two pass-through proxies
 * (primary and fallback, `rpc_url` and `rpc_urls`), with a block mined every 100 ms; after
 * `seconds` the primary is stopped, and blocks go on for twice as long. Every block from 0 to the
 * head must be published to CHAIN_EVENTS exactly once; reports the longest time without a block
 * published and the time from a block's mining to its publication, before and after the stop, and
 * what the follower counted as failed reads.
 */
export const failoverIngest = async (seconds: number): Promise<ReadonlyArray<string>> => {
  const anvil = await startAnvil({ chainId: CHAIN_ID });
  const primary = await startProviderProxy({ target: anvil.rpcUrl, style: "anvil" });
  const fallback = await startProviderProxy({ target: anvil.rpcUrl, style: "anvil" });
  const nats = await startTestNats();
  let ingest: Awaited<ReturnType<typeof startServiceProcess>> | undefined;
  try {
    const history = await mineLogHistory(anvil.rpcUrl, { blocks: HISTORY_BLOCKS, every: 5, logsPerTx: 3 });
    const chains = await writeChainsFile(await mkdtemp(join(tmpdir(), "svc-failover-")), [
      {
        chainId: CHAIN_ID,
        name: "failover",
        rpcUrl: primary.url,
        extra: { rpc_urls: [fallback.url], start_block: 0 },
      },
    ]);
    ingest = await startServiceProcess(nats, chains, { env: { ROLES: "ingest" } });
    const api = await nats.connectAs("api");
    const { events, stop } = await collectChainEvents(api);
    const status = await Effect.runPromise(openBucket(api, "ingest_status"));
    const follower = async () => (await status.get(String(CHAIN_ID)))?.json<FollowerStatus>();
    // When each block event arrived, to the 5 ms.
    const arrivedAt: Array<number> = [];
    const stamping = setInterval(() => {
      while (arrivedAt.length < events.length) arrivedAt.push(performance.now());
    }, 5);
    const published = () => new Set(blocksOf(events).map((b) => b.number));
    try {
      await waitFor(() => published().has(history.head), 60_000, "the history published");

      const minedAt = new Map<number, number>();
      const startedAt = performance.now();
      const stopAt = startedAt + seconds * 1000;
      const endAt = stopAt + 2 * seconds * 1000;
      let stoppedAt = Number.POSITIVE_INFINITY;
      const stopping = sleep(stopAt - performance.now()).then(async () => {
        await primary.down();
        stoppedAt = performance.now();
      });
      while (performance.now() < endAt) {
        const began = performance.now();
        minedAt.set(await mineOneLogBlock(anvil.rpcUrl), performance.now());
        await sleep(BLOCK_EVERY_MS - (performance.now() - began));
      }
      await stopping;
      const head = Number.parseInt(await nodeRequest<string>(anvil.rpcUrl, "eth_blockNumber"), 16);
      await waitFor(() => published().has(head), 30_000, `block ${head} published`);
      clearInterval(stamping);
      while (arrivedAt.length < events.length) arrivedAt.push(performance.now());

      const counts = new Map<number, number>();
      const publishedAt = new Map<number, number>();
      events.forEach((event, i) => {
        if (event.kind !== "block") return;
        counts.set(event.block.number, (counts.get(event.block.number) ?? 0) + 1);
        if (!publishedAt.has(event.block.number)) publishedAt.set(event.block.number, arrivedAt[i]!);
      });
      const missing = Array.from({ length: head + 1 }, (_, n) => n).filter((n) => !counts.has(n));
      const twice = [...counts].filter(([, n]) => n > 1).map(([block]) => block);
      const reorgs = events.filter((e) => e.kind === "reorg").length;
      const delays = (from: number, to: number) =>
        [...minedAt]
          .filter(([, at]) => at >= from && at < to)
          .map(([block, at]) => (publishedAt.get(block) ?? Number.NaN) - at)
          .filter(Number.isFinite);
      const arrivals = [...publishedAt.values()];
      const said = await follower();
      const endpoints = said?.node?.endpoints.map((e) => `${e.url} ${e.state}`).join(", ") ?? "?";
      await stop();
      return [
        `ingest process following a bare anvil (history of ${history.head} blocks, then a block every ${BLOCK_EVERY_MS} ms) through a primary and a fallback proxy; primary stopped after ${seconds} s, blocks mined for ${2 * seconds} s more`,
        `  blocks 0-${head}: ${missing.length === 0 && twice.length === 0 ? "each published exactly once" : `missing ${missing.length} (${missing.slice(0, 5).join(", ")}), published twice ${twice.length} (${twice.slice(0, 5).join(", ")})`}${reorgs === 0 ? "" : `; ${reorgs} reorg events`}`,
        `  mined -> published before the stop: ${describeLatency(delays(startedAt, stoppedAt))}, longest time without a block published ${longestGap(arrivals, startedAt + 500, stoppedAt).toFixed(0)} ms`,
        `  after the stop: ${describeLatency(delays(stoppedAt, endAt))}, longest time without a block published ${longestGap(arrivals, stoppedAt, endAt).toFixed(0)} ms`,
        `  follower: ${said?.rpc_errors ?? "?"} failed reads${said?.last_error ? ` (last: ${said.last_error.slice(0, 160)})` : ""}; endpoints ${endpoints}; the fallback saw ${fallback.stats().httpRequests} HTTP requests, the primary ${primary.stats().httpRequests}`,
      ];
    } finally {
      clearInterval(stamping);
    }
  } finally {
    await ingest?.stop();
    await nats.stop();
    await primary.stop();
    await fallback.stop();
    await anvil.stop();
  }
};
