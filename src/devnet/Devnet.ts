import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { Effect, type Scope } from "effect";
import { type AnvilInstance, startAnvil } from "./AnvilProcess.js";
import { DEVNET_ANVIL_ARGS } from "./anvilArgs.js";
import { DevnetError } from "./DevnetError.js";
import type { DevnetManifest } from "./DevnetManifest.js";
import { devnetAccounts } from "./devAccounts.js";
import { devnetChainsConfig, devnetTokenList } from "./devnetChainsConfig.js";
import { devnetPaths, stateDumpPath } from "./devnetPaths.js";
import { readManifest, writeManifest } from "./manifestFile.js";
import { readSeed, seedDevnet } from "./seedDevnet.js";
import type { SeedProgressOptions } from "./seedProgress.js";

export { DevnetError } from "./DevnetError.js";
export type { DevnetManifest } from "./DevnetManifest.js";

/** Options of {@link startDevnet}. */
export interface DevnetOptions {
  /** `$DATA_DIR`: the manifest goes to `<dataDir>/devnet.json`, everything else under `<dataDir>/devnet/`. */
  readonly dataDir: string;
  /** Progress lines (seeding, node output); silent when omitted. */
  readonly log?: (line: string) => void;
  /** A terminal on which a first seed draws its live progress line; unset: a log line per step. */
  readonly live?: SeedProgressOptions["live"];
}

/** A running devnet: one anvil per chain, serving the seeded state. */
export interface RunningDevnet {
  readonly manifest: DevnetManifest;
  readonly manifestPath: string;
  readonly chainsConfigPath: string;
  /** Stops every node and waits for them to exit. */
  readonly stop: () => Promise<void>;
}

const previousApiKey = (path: string): Promise<string | null> =>
  readManifest(path).then(
    (manifest) => manifest.api_key,
    () => null,
  );

/**
 * Starts the devnet: seeds it on first use (tens of seconds), otherwise loads each chain's state dump
 * (seconds). Every start serves the seeded state afresh: activity from an earlier run is not kept. Writes
 * the manifest and the chains config; an `api_key` already in the manifest is kept.
 */
/**
 * Where the devnet's token list is written, beside its chains file, as an absolute path: the chains
 * file names it, and list paths are read against the chains file's own directory, so a relative
 * one (the default DATA_DIR is `data`) would be looked for under `data/devnet/data/devnet`. A copy
 * of the chains file elsewhere (a test's, an operator's) still finds it.
 */
export const devnetTokenListPath = (chainsConfig: string): string =>
  resolve(dirname(chainsConfig), "tokens.json");

export const startDevnet = async (options: DevnetOptions): Promise<RunningDevnet> => {
  const log = options.log ?? (() => {});
  const paths = devnetPaths(options.dataDir);
  let seed = await readSeed(paths);
  if (seed === undefined) {
    log("devnet: no seed on disk, seeding all chains (first start only)");
    seed = await seedDevnet(paths, log, options.live);
  }
  const nodes: AnvilInstance[] = [];
  try {
    for (const node of await Promise.all(
      seed.chains.map((chain) =>
        startAnvil({
          chainId: chain.chain_id,
          args: [...DEVNET_ANVIL_ARGS, "--load-state", stateDumpPath(paths, chain.name)],
          log,
        }),
      ),
    ))
      nodes.push(node);
    const manifest: DevnetManifest = {
      version: 1,
      api_key: await previousApiKey(paths.manifest),
      seeded_at: seed.seeded_at,
      chains_config_path: paths.chainsConfig,
      accounts: devnetAccounts().map((a) => ({
        index: a.index,
        address: a.address,
        private_key: a.privateKey,
      })),
      chains: seed.chains.map((chain, i) => ({
        ...chain,
        rpc_url: nodes[i]!.rpcUrl,
        ws_url: nodes[i]!.wsUrl,
      })),
    };
    await mkdir(dirname(paths.chainsConfig), { recursive: true });
    const tokenList = devnetTokenListPath(paths.chainsConfig);
    await writeFile(tokenList, `${JSON.stringify(devnetTokenList(manifest.chains), null, 2)}\n`);
    await writeFile(
      paths.chainsConfig,
      `${JSON.stringify(devnetChainsConfig(manifest.chains, tokenList), null, 2)}\n`,
    );
    await writeManifest(paths.manifest, manifest);
    return {
      manifest,
      manifestPath: paths.manifest,
      chainsConfigPath: paths.chainsConfig,
      stop: async () => {
        await Promise.all(nodes.map((node) => node.stop()));
      },
    };
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw error;
  }
};

/** Sets `api_key` in the manifest under `dataDir` (the demo key the service creates for team `demo`). */
export const writeDevnetApiKey = async (dataDir: string, apiKey: string): Promise<void> => {
  const path = devnetPaths(dataDir).manifest;
  await writeManifest(path, { ...(await readManifest(path)), api_key: apiKey });
};

/** {@link startDevnet} as a scoped resource: the nodes stop when the scope closes. */
export const devnetResource = (
  options: DevnetOptions,
): Effect.Effect<RunningDevnet, DevnetError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => startDevnet(options),
      catch: (cause) =>
        new DevnetError({
          reason: "StartFailed",
          detail: cause instanceof Error ? cause.message : String(cause),
          cause,
        }),
    }),
    (devnet) => Effect.promise(() => devnet.stop()),
  );
