import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";
import { compileSolidity, packageVersion } from "./compileSolidity.js";

/**
 * Compiled output is cached with the installed packages (`node_modules/.cache`), so every
 * process and test of a checkout compiles at most once; a read-only tree falls back to the
 * system's temporary directory.
 */
const CACHE_DIRS = [
  join(dirname(fileURLToPath(import.meta.url)), "..", "..", "node_modules", ".cache", "wallet-data-service"),
  tmpdir(),
];

const compileLens = async (sourcePath: string, contract: string): Promise<Hex> => {
  const sources = { [basename(sourcePath)]: await readFile(sourcePath, "utf8") };
  let lastError: unknown;
  for (const cacheDir of CACHE_DIRS) {
    try {
      const compiled = await compileSolidity({
        name: contract,
        sources,
        cacheDir,
        dependencyTag: packageVersion("@uniswap/v4-core"),
      });
      const lens = compiled[contract];
      if (lens === undefined) throw new Error(`${contract} missing from the compiler output`);
      return lens.deployedBytecode;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
};

const pending = new Map<string, Promise<Hex>>();

/**
 * Runtime code of a read-only lens contract of ours (a `.sol` file next to the module that
 * asks), compiled with solc-js on first use (about a second, once per checkout thanks to the
 * cache) and shared by every later caller in the process. Lenses are never deployed: their code
 * is placed at a fixed address by an eth_call state override (see `RawCall.code`).
 */
export const lensCode = (sourcePath: string, contract: string): Promise<Hex> => {
  let code = pending.get(sourcePath);
  if (code === undefined) {
    code = compileLens(sourcePath, contract);
    pending.set(sourcePath, code);
    // A failed compile is not remembered: the next caller tries again.
    code.catch(() => pending.delete(sourcePath));
  }
  return code;
};
