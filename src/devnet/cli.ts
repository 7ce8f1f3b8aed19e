import { parseArgs } from "node:util";
import { runActivity } from "./activity/runActivity.js";
import { startDevnet } from "./Devnet.js";
import { devnetPaths } from "./devnetPaths.js";
import { readManifest } from "./manifestFile.js";

/** A command-line number that must be positive, or a one-sentence error naming the flag. */
const positiveNumber = (flag: string, raw: string | undefined): number => {
  const value = Number(raw);
  if (raw === undefined || !Number.isFinite(value) || value <= 0) {
    throw new Error(`${flag} must be a positive number (got "${raw}").`);
  }
  return value;
};

/**
 * `npm run devnet`: starts the devnet, prints the manifest path and runs until Ctrl-C.
 * `npm run devnet -- activity [--rate N] [--duration S]`: sends activity to the devnet that is running.
 */
const main = async (): Promise<void> => {
  const dataDir = process.env.DATA_DIR ?? "./data";
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: { rate: { type: "string", default: "2" }, duration: { type: "string", default: "60" } },
  });
  if (positionals[0] === "activity") {
    const ratePerSecond = positiveNumber("--rate", values.rate);
    const durationSeconds = positiveNumber("--duration", values.duration);
    const manifest = await readManifest(devnetPaths(dataDir).manifest).catch(() => {
      throw new Error(
        `No devnet manifest at ${devnetPaths(dataDir).manifest}: start the devnet (npm start or npm run devnet) first.`,
      );
    });
    const summary = await runActivity(manifest, {
      ratePerSecond,
      durationSeconds,
      log: (line) => console.log(line),
    });
    console.log(JSON.stringify(summary));
    return;
  }
  if (positionals.length > 0) throw new Error(`unknown command ${positionals[0]}; try "activity" or nothing`);
  const started = Date.now();
  const devnet = await startDevnet({
    dataDir,
    log: (line) => console.error(line),
    ...(process.stderr.isTTY ? { live: process.stderr } : {}),
  });
  console.error(
    `devnet: ${devnet.manifest.chains.length} chains up in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(devnet.manifestPath);
  const shutdown = () => {
    devnet.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
