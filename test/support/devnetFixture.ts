import { access, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningDevnet, startDevnet } from "../../src/devnet/Devnet.js";
import type { DevnetManifest } from "../../src/devnet/DevnetManifest.js";
import { devnetPaths } from "../../src/devnet/devnetPaths.js";

/** The seed is made once per machine (about 35 s) and shared read-only by every test file. */
const SEED_DIR = join(tmpdir(), "svc-devnet-seed");
const LOCK_DIR = `${SEED_DIR}.lock`;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** Seeds the shared devnet once, whichever test file gets here first; the others wait for it. */
const ensureSeed = async (): Promise<void> => {
  const seeded = () => exists(devnetPaths(SEED_DIR).seedRecord);
  for (;;) {
    if (await seeded()) return;
    try {
      await mkdir(LOCK_DIR);
    } catch {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    try {
      if (!(await seeded())) await (await startDevnet({ dataDir: SEED_DIR })).stop();
    } finally {
      await rm(LOCK_DIR, { recursive: true, force: true });
    }
  }
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
  await ensureSeed();
  const dataDir = await mkdtemp(join(tmpdir(), "svc-devnet-"));
  const seed = devnetPaths(SEED_DIR);
  const mine = devnetPaths(dataDir);
  await mkdir(join(dataDir, "devnet"), { recursive: true });
  await symlink(seed.stateDir, mine.stateDir);
  await symlink(seed.seedRecord, mine.seedRecord);
  await symlink(seed.buildDir, mine.buildDir);
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
