import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import { Schema } from "effect";
import { chainManifest, type SeededChain } from "./chainManifest.js";
import { DEVNET_CHAINS } from "./chainSpecs.js";
import { compileContracts } from "./compileContracts.js";
import { type ManifestChain, ManifestChain as ManifestChainSchema } from "./DevnetManifest.js";
import { type DevnetPaths, stateDumpPath } from "./devnetPaths.js";
import { seedChain } from "./seedChain.js";
import { makeSeedProgress, type SeedProgressOptions } from "./seedProgress.js";

/**
 * Version of what a seed contains. Bump it whenever seeding changes (contracts, markets, wallets,
 * history), so existing data directories reseed instead of serving a stale dump.
 */
export const SEED_VERSION = 3;

/** `seed.json`: the chains as seeded (URLs empty) and when the history ends. */
const SeedRecord = Schema.Struct({
  seed_version: Schema.Number,
  seeded_at: Schema.String,
  chains: Schema.Array(ManifestChainSchema),
});
export type SeedRecord = typeof SeedRecord.Type;

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** The seed record when a complete seed of the current version is on disk, else undefined. */
export const readSeed = async (paths: DevnetPaths): Promise<SeedRecord | undefined> => {
  try {
    const record = Schema.decodeUnknownSync(SeedRecord)(JSON.parse(await readFile(paths.seedRecord, "utf8")));
    if (record.seed_version !== SEED_VERSION) return undefined;
    const dumps = await Promise.all(record.chains.map((chain) => exists(stateDumpPath(paths, chain.name))));
    return dumps.every(Boolean) ? record : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Seeds every devnet chain in parallel (one anvil each), leaving a state dump per chain and `seed.json`.
 * The history of every chain ends at the same moment: now.
 */
export const seedDevnet = async (
  paths: DevnetPaths,
  log: (line: string) => void,
  /** A terminal for the live progress line (see seedProgress.ts); unset: a log line per step. */
  live?: SeedProgressOptions["live"],
): Promise<SeedRecord> => {
  await mkdir(paths.stateDir, { recursive: true });
  log("devnet: compiling contracts");
  const compiled = await compileContracts(paths.buildDir);
  const endTimestamp = Math.floor(Date.now() / 1000);
  const progress = makeSeedProgress({ chains: DEVNET_CHAINS.map((spec) => spec.name), log, live });
  const seeded: SeededChain[] = await Promise.all(
    DEVNET_CHAINS.map((spec) => {
      progress.step(spec.name, "starting node");
      return seedChain({
        spec,
        compiled,
        dumpPath: stateDumpPath(paths, spec.name),
        endTimestamp,
        log,
        progress: (step) => progress.step(spec.name, step),
      });
    }),
  );
  progress.finish();
  const chains: ManifestChain[] = seeded.map((chain) => chainManifest(chain, { rpcUrl: "", wsUrl: "" }));
  const record: SeedRecord = {
    seed_version: SEED_VERSION,
    seeded_at: new Date(endTimestamp * 1000).toISOString(),
    chains,
  };
  await writeFile(paths.seedRecord, JSON.stringify(record, null, 2));
  return record;
};
