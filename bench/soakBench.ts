import { runActivity } from "../src/devnet/activity/runActivity.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { callerFor, WEBHOOKS } from "../test/support/webhookEnv.js";
import { startReceiver } from "../test/support/webhookReceiver.js";
import { benchKey, startServiceProcess } from "./lib/benchEnv.js";
import { curveTable, mb, memoryRecorder, rssVerdict, spacesLine } from "./lib/memoryCurve.js";
import { runSoakLoad } from "./lib/soakLoad.js";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 240);
const SAMPLE_SECONDS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_SOAK_CONNECTIONS ?? 32);
const ACTIVITY_RATE = Number(process.env.BENCH_SOAK_ACTIVITY_RATE ?? 2);
/** `hostile`: only the single-token route over the 1,200-token wallet's tokens (the costliest cache keys). */
const MIX = process.env.BENCH_SOAK_MIX ?? "mixed";
/** Node options of the service process only, e.g. `--max-old-space-size=256`, to see their effect on memory. */
const SERVICE_NODE_OPTIONS = process.env.BENCH_SOAK_NODE_OPTIONS ?? "";
const KEYS = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The ERC-20 tokens a wallet holds on chain 1, read page by page through the service. */
const tokensOf = async (url: string, key: string, wallet: string) => {
  const tokens: Array<string> = [];
  let offset: string | undefined;
  do {
    const page = `${url}/v1/evm/balances/${wallet}?chain_ids=1&limit=100${offset === undefined ? "" : `&offset=${offset}`}`;
    const body = (await (await fetch(page, { headers: { "x-svc-api-key": key } })).json()) as {
      balances: Array<{ address: string }>;
      next_offset?: string;
    };
    tokens.push(...body.balances.map((b) => b.address).filter((a) => a !== "native"));
    offset = body.next_offset;
  } while (offset !== undefined);
  return tokens;
};

/**
 * Memory figures: minutes of mixed load (soakMix.ts) against the
 * service on the devnet, with devnet activity mining new blocks and webhook
 * deliveries flowing, while the service process reports RSS, heap and external
 * memory every BENCH_SOAK_SAMPLE_SECONDS. The verdict compares RSS growth after
 * warm-up (the second quarter to the last) with growth during it
 * (memoryCurve.ts); a full GC before the load, at the middle and at the end
 * tells live heap from heap V8 merely keeps.
 */
export const soakBench = async () => {
  const devnet = await startTestDevnet();
  const nats = await startTestNats();
  const receiver = await startReceiver();
  const service = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
    script: "bench/servers/soakService.ts",
    env: {
      WEBHOOK_ALLOW_HTTP: "true",
      WEBHOOK_ALLOWED_HOSTS: "127.0.0.0/8",
      BENCH_MEMORY_EVERY_MS: String(SAMPLE_SECONDS * 1000),
      ...(SERVICE_NODE_OPTIONS === "" ? {} : { NODE_OPTIONS: SERVICE_NODE_OPTIONS }),
    },
  });
  const memory = memoryRecorder(service.stdout);
  const admin = await nats.connectAs("admin");
  try {
    const keys: Array<string> = [];
    for (let i = 0; i < KEYS; i++) keys.push(await benchKey(nats, `soak-${i}`));
    const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
    const activityWallets = ["activity_a", "activity_b", "activity_c"].map((w) => chain.wallets[w]!);
    const lasting = await callerFor(service.url, keys[0]!)("POST", WEBHOOKS, {
      name: "soak-lasting",
      url: `${receiver.url}/lasting`,
      type: "activities",
      addresses: activityWallets,
    });
    const lastingId = String(lasting.json.id);
    const pagingTokens = await tokensOf(service.url, keys[0]!, chain.wallets.paging!);
    await sleep(SAMPLE_SECONDS * 1000 + 500);
    const baselineGc = await memory.afterFullGc(service.pid);
    memory.start();

    const stop = new AbortController();
    const activity = runActivity(devnet.manifest, { ratePerSecond: ACTIVITY_RATE, durationSeconds: SECONDS });
    const load = runSoakLoad(
      {
        url: service.url,
        keys,
        chain,
        receiverUrl: receiver.url,
        admin,
        lastingWebhooks: [lastingId],
        pagingTokens,
      },
      { connections: CONNECTIONS, ...(MIX === "hostile" ? { only: ["pagingToken"] } : {}) },
      stop.signal,
    );
    await sleep((SECONDS / 2) * 1000);
    const midGc = await memory.afterFullGc(service.pid);
    await sleep((SECONDS / 2) * 1000);
    const endGc = await memory.afterFullGc(service.pid);
    stop.abort();
    const counts = await load;
    const activitySummary = await activity;

    const curve = memory.curve();
    const verdict = rssVerdict(curve, SECONDS);
    const requests = Object.values(counts).reduce(
      (a, row) => a + Object.values(row).reduce((b, n) => b + n, 0),
      0,
    );
    const mix = Object.entries(counts)
      .map(
        ([name, row]) =>
          `${name} ${Object.entries(row)
            .map(([k, n]) => `${k}:${n}`)
            .join("/")}`,
      )
      .join(", ");
    return {
      name: "soak",
      lines: [
        `${SECONDS} s of ${MIX} load${SERVICE_NODE_OPTIONS === "" ? "" : ` (service: ${SERVICE_NODE_OPTIONS})`}, ${CONNECTIONS} connections (${pagingTokens.length} tokens of the paging wallet), ${(requests / SECONDS).toFixed(0)} req/s; devnet activity ${ACTIVITY_RATE} actions/s (${Object.values(activitySummary.sent).reduce((a, n) => a + n, 0)} sent); ${receiver.received.length} webhook deliveries received`,
        `requests by kind and status: ${mix}`,
        ...curveTable(curve),
        `RSS growth during warm-up (mean of the 2nd quarter - before load) ${mb(verdict.warmUpBytes)} MB; after warm-up (mean of the 4th quarter - mean of the 2nd) ${mb(verdict.afterBytes)} MB; peak ${mb(verdict.peakFirstHalf)} MB in the first half, ${mb(verdict.peakSecondHalf)} MB in the second  -> ${verdict.flat ? "stops growing after warm-up" : "STILL GROWING after warm-up"}`,
        `live heap after a full GC: before load ${mb(baselineGc.heapUsed)} MB, middle ${mb(midGc.heapUsed)} MB, end ${mb(endGc.heapUsed)} MB (heap total ${mb(baselineGc.heapTotal)} / ${mb(midGc.heapTotal)} / ${mb(endGc.heapTotal)} MB; external ${mb(baselineGc.external)} / ${mb(midGc.external)} / ${mb(endGc.external)} MB; RSS ${mb(baselineGc.rss)} / ${mb(midGc.rss)} / ${mb(endGc.rss)} MB)`,
        `V8 heap spaces (used/reserved MB) after the full GC at the middle: ${spacesLine(midGc)}; at the end: ${spacesLine(endGc)}`,
      ],
    };
  } finally {
    await admin.close();
    await service.stop();
    await receiver.stop();
    await nats.stop();
    await devnet.stop();
  }
};
