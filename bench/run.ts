import { gatewayBench } from "./gatewayBench.js";

/**
 * `npm run bench`: every benchmark, each reporting ratios against a floor measured
 * in the same run (absolute numbers swing between machines; ratios travel).
 * BENCH_SECONDS and BENCH_REPETITIONS shorten or lengthen the runs.
 */
const benches = [gatewayBench];

for (const bench of benches) {
  const result = await bench();
  process.stdout.write(`\n== ${result.name} ==\n${result.lines.join("\n")}\n`);
}
process.exit(0);
