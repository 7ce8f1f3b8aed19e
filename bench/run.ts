import { readFileSync, rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { balancesBench } from "./balancesBench.js";
import { blockNumberBench } from "./blockNumberBench.js";
import { chainScaleBench } from "./chainScaleBench.js";
import { discoveryBench } from "./discoveryBench.js";
import { everyTypeBench } from "./everyTypeBench.js";
import { gatewayBench } from "./gatewayBench.js";
import { indexerBench } from "./indexerBench.js";
import { indexLookupsBench } from "./indexLookupsBench.js";
import { ingestBench } from "./ingestBench.js";
import { ingestGrowthBench } from "./ingestGrowthBench.js";
import { joiningWorkerBench } from "./joiningWorkerBench.js";
import { lendingBench } from "./lendingBench.js";
import { notifierBench } from "./notifierBench.js";
import { positionAlertsBench } from "./positionAlertsBench.js";
import { positionAlertsDeliveryBench } from "./positionAlertsDeliveryBench.js";
import { positionsBench } from "./positionsBench.js";
import { realNodesBench } from "./realNodesBench.js";
import { registryBackfillBench } from "./registryBackfillBench.js";
import { rpcLayerBench } from "./rpcLayerBench.js";
import { scaleOutBench } from "./scaleOutBench.js";
import { soakBench } from "./soakBench.js";
import { valueChangeAlertsBench } from "./valueChangeAlertsBench.js";
import { vaultsBench } from "./vaultsBench.js";
import { webhooksBench } from "./webhooksBench.js";

/**
 * `npm run bench`: every benchmark, each reporting ratios against a floor measured
 * in the same run (absolute numbers swing between machines; ratios travel).
 * BENCH_SECONDS and BENCH_REPETITIONS shorten or lengthen the runs; names
 * given as arguments (`npm run bench -- balances`) run only those.
 */
const all = {
  gateway: gatewayBench,
  balances: balancesBench,
  "block-number": blockNumberBench,
  positions: positionsBench,
  lending: lendingBench,
  vaults: vaultsBench,
  "every-type": everyTypeBench,
  ingest: ingestBench,
  "ingest-growth": ingestGrowthBench,
  webhooks: webhooksBench,
  notifier: notifierBench,
  soak: soakBench,
  "scale-out": scaleOutBench,
  joining: joiningWorkerBench,
  "real-nodes": realNodesBench,
  "registry-backfill": registryBackfillBench,
  discovery: discoveryBench,
  "chain-scale": chainScaleBench,
  indexer: indexerBench,
  "index-lookups": indexLookupsBench,
  "rpc-layer": rpcLayerBench,
  "position-alerts": positionAlertsBench,
  "position-alerts-delivery": positionAlertsDeliveryBench,
  "value-change-alerts": valueChangeAlertsBench,
};
const only = process.argv.slice(2);
const benches = Object.entries(all)
  .filter(([name]) => only.length === 0 || only.includes(name))
  .map(([, bench]) => bench);

/** The 1-minute load average: figures on a shared machine mean little without it. */
const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];

/**
 * The run's temporary files (service data directories, chains files, NATS stores: a chain-scale
 * run writes hundreds of MB) go under one directory, removed when the run ends, as children
 * inherit TMPDIR. The devnet's seed, named at import, stays where later runs find it.
 */
const runTmp = await mkdtemp(join(tmpdir(), "svc-bench-run-"));
process.env.TMPDIR = runTmp;
// Stopped with Ctrl-C (the children get it too): the run's files go as they would at its end.
process.once("SIGINT", () => {
  rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
  process.exit(130);
});
try {
  for (const bench of benches) {
    const before = loadAverage();
    const result = await bench();
    process.stdout.write(
      `\n== ${result.name} == (load average ${before} at the start, ${loadAverage()} at the end)\n${result.lines.join("\n")}\n`,
    );
  }
} finally {
  // A child still writing as the run ends may leave a directory behind: never a failed run for it.
  await rm(runTmp, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
}
process.exit(0);
