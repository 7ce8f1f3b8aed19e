import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type RunningDevnet, startDevnet } from "../../src/devnet/Devnet.js";
import type { DevnetManifest } from "../../src/devnet/DevnetManifest.js";
import { devnetPaths } from "../../src/devnet/devnetPaths.js";
import { readSeed, SEED_VERSION } from "../../src/devnet/seedDevnet.js";

const DEVNET_SOURCES = fileURLToPath(new URL("../../src/devnet/", import.meta.url));
/** Packages whose artifacts or binaries end up in the seed. */
const SEED_PACKAGES = [
  "@foundry-rs/anvil",
  "@openzeppelin/contracts",
  "solc",
  "@uniswap/v2-core",
  "@uniswap/v2-periphery",
  "@uniswap/v3-core",
  "@uniswap/v3-periphery",
  "@uniswap/v4-core",
  "@uniswap/v4-periphery",
  "@cryptoalgebra/integral-core",
  "@cryptoalgebra/integral-periphery",
  "@aave/protocol-v2",
  "@aave/core-v3",
  "@venusprotocol/venus-protocol",
];

/**
 * What the seed is made from: the seed version, every source under src/devnet and the versions of the
 * packages it deploys. A seed made by other code gets another key, so it is never reused.
 */
const seedKey = (): string => {
  const hash = createHash("sha256").update(`seed ${SEED_VERSION}\n`);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(`${path.slice(DEVNET_SOURCES.length)}\n`).update(readFileSync(path));
    }
  };
  walk(DEVNET_SOURCES);
  // Read from node_modules directly: some packages' `exports` hide package.json from require.
  for (const name of SEED_PACKAGES) {
    const manifest = fileURLToPath(new URL(`../../node_modules/${name}/package.json`, import.meta.url));
    hash.update(`${name}@${(JSON.parse(readFileSync(manifest, "utf8")) as { version: string }).version}\n`);
  }
  return `v${SEED_VERSION}-${hash.digest("hex").slice(0, 12)}`;
};

/** The seed is made once per machine and code version (35 s and up) and shared read-only by every test file. */
const SEED_PREFIX = "svc-devnet-seed";
const SEED_DIR = join(tmpdir(), `${SEED_PREFIX}-${seedKey()}`);
const LOCK_DIR = `${SEED_DIR}.lock`;

/** A lock directory's owner writes its pid there; a lock taken this recently may not have it yet. */
const LOCK_PID_GRACE_MS = 10_000;

/**
 * Whether a seed lock is held by a live process. A test worker killed while seeding (a run ending on a
 * hook timeout) leaves its lock behind: without this, every later run would wait on it forever.
 */
const lockIsLive = async (lock: string): Promise<boolean> => {
  const pid = Number(await readFile(join(lock, "pid"), "utf8").catch(() => ""));
  if (!Number.isInteger(pid) || pid <= 0) {
    const taken = await stat(lock).then(
      (info) => info.mtimeMs,
      () => 0,
    );
    return Date.now() - taken < LOCK_PID_GRACE_MS;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Removes the shared seeds of other code versions (each holds 300 MB of state dumps), except one that is
 * being made right now (its lock is held by a live process).
 */
const removeStaleSeeds = async (): Promise<void> => {
  for (const name of await readdir(tmpdir())) {
    // The unkeyed name is what older code used; per-test directories (svc-devnet-XXXXXX) never match.
    const isSeed = name === SEED_PREFIX || name.startsWith(`${SEED_PREFIX}-v`);
    if (!isSeed || name.endsWith(".lock") || join(tmpdir(), name) === SEED_DIR) continue;
    const lock = join(tmpdir(), `${name}.lock`);
    if (await lockIsLive(lock)) continue;
    await rm(join(tmpdir(), name), { recursive: true, force: true });
    await rm(lock, { recursive: true, force: true });
  }
};

/**
 * Seeds the shared devnet once, whichever process gets here first; the others wait for it. A seed counts
 * only when `readSeed` accepts it (current seed version, every state dump present), so a half-written one
 * is made again rather than half-used. The integration tests' global setup calls it before any test file
 * starts (test/support/devnetSeedSetup.ts), so no file's hook timeout has to cover the seeding. `log`
 * gets the seed's progress lines (the seed step timings, for measuring a change to the seed).
 */
export const ensureSeed = async (log?: (line: string) => void): Promise<void> => {
  const seeded = async () => (await readSeed(devnetPaths(SEED_DIR))) !== undefined;
  for (;;) {
    if (await seeded()) return;
    try {
      await mkdir(LOCK_DIR);
      await writeFile(join(LOCK_DIR, "pid"), String(process.pid));
    } catch {
      // Someone else is seeding; take over only if that process is gone.
      if (!(await lockIsLive(LOCK_DIR))) await rm(LOCK_DIR, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!(await seeded())) {
        await removeStaleSeeds();
        await rm(SEED_DIR, { recursive: true, force: true });
        await (await startDevnet({ dataDir: SEED_DIR, ...(log === undefined ? {} : { log }) })).stop();
      }
    } finally {
      await rm(LOCK_DIR, { recursive: true, force: true });
    }
  }
};

/**
 * A fresh data directory holding the shared seed (linked, read-only): a devnet started in it, by
 * startDevnet or by the service itself without CHAINS_CONFIG, loads the seed instead of seeding.
 */
export const seededDataDir = async (): Promise<string> => {
  await ensureSeed();
  const dataDir = await mkdtemp(join(tmpdir(), "svc-devnet-"));
  const seed = devnetPaths(SEED_DIR);
  const mine = devnetPaths(dataDir);
  await mkdir(join(dataDir, "devnet"), { recursive: true });
  await symlink(seed.stateDir, mine.stateDir);
  await symlink(seed.seedRecord, mine.seedRecord);
  await symlink(seed.buildDir, mine.buildDir);
  return dataDir;
};

export interface TestDevnet {
  readonly devnet: RunningDevnet;
  readonly manifest: DevnetManifest;
  /** A fresh data directory holding this devnet's manifest and chains file. */
  readonly dataDir: string;
  readonly stop: () => Promise<void>;
}

/**
 * The embedded devnet for one test file: its own anvil processes (free ports)
 * loading the shared seed's state dumps, and its own manifest and chains file.
 */
export const startTestDevnet = async (): Promise<TestDevnet> => {
  const dataDir = await seededDataDir();
  const devnet = await startDevnet({ dataDir });
  return {
    devnet,
    manifest: devnet.manifest,
    dataDir,
    stop: async () => {
      await devnet.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};
