import { readdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type CompiledContracts, compileSolidity, packageVersion } from "../lib/compileSolidity.js";

export type { CompiledContract, CompiledContracts } from "../lib/compileSolidity.js";

const CONTRACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "contracts");

const readSources = async (): Promise<Record<string, string>> => {
  const files = (await readdir(CONTRACTS_DIR)).filter((f) => f.endsWith(".sol")).sort();
  const entries = await Promise.all(
    files.map(async (file) => [file, await readFile(join(CONTRACTS_DIR, file), "utf8")] as const),
  );
  return Object.fromEntries(entries);
};

/**
 * Compiles `src/devnet/contracts/*.sol` (with OpenZeppelin and Uniswap V4 imports from node_modules) using
 * solc-js, cached under `buildDir` (see `compileSolidity`).
 */
export const compileContracts = async (buildDir: string): Promise<CompiledContracts> =>
  compileSolidity({
    name: "contracts",
    sources: await readSources(),
    cacheDir: buildDir,
    dependencyTag: `${packageVersion("@openzeppelin/contracts")} ${packageVersion("@uniswap/v4-core")}`,
  });
