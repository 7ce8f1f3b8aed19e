import { join } from "node:path";

/** Where the devnet keeps its files under `$DATA_DIR`. */
export interface DevnetPaths {
  /** `$DATA_DIR/devnet.json`: the manifest (see docs/devnet.md). */
  readonly manifest: string;
  /** `$DATA_DIR/devnet/chains.json`: the chains config the service reads when CHAINS_CONFIG is unset. */
  readonly chainsConfig: string;
  /** `$DATA_DIR/devnet/seed.json`: what the seed deployed (the manifest without URLs). */
  readonly seedRecord: string;
  /** `$DATA_DIR/devnet/state/`: one anvil state dump per chain. */
  readonly stateDir: string;
  /** `$DATA_DIR/devnet/build/`: solc output cache. */
  readonly buildDir: string;
}

/** The devnet's paths under `dataDir`. */
export const devnetPaths = (dataDir: string): DevnetPaths => ({
  manifest: join(dataDir, "devnet.json"),
  chainsConfig: join(dataDir, "devnet", "chains.json"),
  seedRecord: join(dataDir, "devnet", "seed.json"),
  stateDir: join(dataDir, "devnet", "state"),
  buildDir: join(dataDir, "devnet", "build"),
});

/** The state dump of chain `name`. */
export const stateDumpPath = (paths: DevnetPaths, name: string): string =>
  join(paths.stateDir, `${name}.json`);
