import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import { compileSolidity, packageVersion } from "../../lib/compileSolidity.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const SOURCE = "PoolDepthLens.sol";

/**
 * Compiled output is cached with the installed packages (`node_modules/.cache`), so every
 * process and test of a checkout compiles at most once; a read-only tree falls back to the
 * system's temporary directory.
 */
const cacheDirs = [join(HERE, "..", "..", "..", "node_modules", ".cache", "wallet-data-service"), tmpdir()];

const compileLens = async (): Promise<Hex> => {
  const sources = { [SOURCE]: await readFile(join(HERE, SOURCE), "utf8") };
  let lastError: unknown;
  for (const cacheDir of cacheDirs) {
    try {
      const compiled = await compileSolidity({
        name: "pool-depth-lens",
        sources,
        cacheDir,
        dependencyTag: packageVersion("@uniswap/v4-core"),
      });
      const lens = compiled.PoolDepthLens;
      if (lens === undefined) throw new Error("PoolDepthLens missing from the compiler output");
      return lens.deployedBytecode;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
};

let pending: Promise<Hex> | undefined;

/**
 * Runtime code of PoolDepthLens.sol, compiled on first use (about a second, once per
 * checkout thanks to the cache) and shared by every later caller in the process.
 */
export const depthLensCode = (): Promise<Hex> => {
  if (pending === undefined) {
    pending = compileLens();
    // A failed compile is not remembered: the next caller tries again.
    pending.catch(() => {
      pending = undefined;
    });
  }
  return pending;
};
