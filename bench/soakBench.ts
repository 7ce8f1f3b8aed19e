import { runActivity } from "../src/devnet/activity/runActivity.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { startTestNats } from "../test/support/natsServer.js";
import { callerFor, WEBHOOKS } from "../test/support/webhookEnv.js";
import { startReceiver } from "../test/support/webhookReceiver.js";
import { benchKey, startServiceProcess } from "./lib/benchEnv.js";
import { curveTable, mb, memoryRecorder, rssVerdict } from "./lib/memoryCurve.js";
import { runSoakLoad } from "./lib/soakMix.js";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 240);
const SAMPLE_SECONDS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_SOAK_CONNECTIONS ?? 32);
const ACTIVITY_RATE = Number(process.env.BENCH_SOAK_ACTIVITY_RATE ?? 2);
const KEYS = 4;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue-11 memory figures: minutes of mixed load (soakMix.ts) against the
 * service on the devnet, with devnet activity mining new blocks and webhook
 * deliveries flowing, while the service process reports RSS, heap and external
 * memory every BENCH_SOAK_SAMPLE_SECONDS. The verdict compares RSS growth in
 * the second half of the run with the first (warm-up); a full GC at the middle
 * and at the end tells live heap from heap V8 merely keeps.
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
    await sleep(SAMPLE_SECONDS * 1000 + 500);
    const baselineGc = await memory.afterFullGc(service.pid);
    memory.start();

    const stop = new AbortController();
    const activity = runActivity(devnet.manifest, { ratePerSecond: ACTIVITY_RATE, durationSeconds: SECONDS });
    const load = runSoakLoad(
      { url: service.url, keys, chain, receiverUrl: receiver.url, admin, lastingWebhooks: [lastingId] },
      CONNECTIONS,
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
        `${SECONDS} s of mixed load, ${CONNECTIONS} connections, ${(requests / SECONDS).toFixed(0)} req/s; devnet activity ${ACTIVITY_RATE} actions/s (${Object.values(activitySummary.sent).reduce((a, n) => a + n, 0)} sent); ${receiver.received.length} webhook deliveries received`,
        `requests by kind and status: ${mix}`,
        ...curveTable(curve),
        `RSS growth: warm-up (first half) ${mb(verdict.warmUpBytes)} MB, after warm-up (second half) ${mb(verdict.afterBytes)} MB (${verdict.afterMbPerMinute.toFixed(2)} MB/min)  -> ${verdict.flat ? "stops growing after warm-up" : "STILL GROWING after warm-up"}`,
        `live heap after a full GC: before load ${mb(baselineGc.heapUsed)} MB, middle ${mb(midGc.heapUsed)} MB, end ${mb(endGc.heapUsed)} MB (heap total ${mb(baselineGc.heapTotal)} / ${mb(midGc.heapTotal)} / ${mb(endGc.heapTotal)} MB; external ${mb(baselineGc.external)} / ${mb(midGc.external)} / ${mb(endGc.external)} MB; RSS ${mb(baselineGc.rss)} / ${mb(midGc.rss)} / ${mb(endGc.rss)} MB)`,
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
