import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Hex } from "viem";

/** One compiled contract: creation code (to deploy) and runtime code (to place with a state override). */
export interface CompiledContract {
  readonly bytecode: Hex;
  readonly deployedBytecode: Hex;
}

/** Compiled contracts by name. */
export type CompiledContracts = Readonly<Record<string, CompiledContract>>;

interface SolcModule {
  compile: (
    input: string,
    callbacks: { import: (path: string) => { contents: string } | { error: string } },
  ) => string;
}

interface SolcOutput {
  errors?: ReadonlyArray<{ severity: string; formattedMessage: string }>;
  contracts?: Record<
    string,
    Record<string, { evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

const require = createRequire(import.meta.url);

/** Imports (`@openzeppelin/...`, `@uniswap/...`) resolve to the installed packages. */
const resolveImport = (path: string): { contents: string } | { error: string } => {
  try {
    return { contents: readFileSync(require.resolve(path), "utf8") };
  } catch {
    return { error: `import not found: ${path}` };
  }
};

const solcInput = (sources: Readonly<Record<string, string>>): string =>
  JSON.stringify({
    language: "Solidity",
    sources: Object.fromEntries(Object.entries(sources).map(([file, content]) => [file, { content }])),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      outputSelection: { "*": { "*": ["evm.bytecode.object", "evm.deployedBytecode.object"] } },
    },
  });

/** Runs solc-js; contracts of imported packages (`@...` files) are left out of the result. */
const compile = (solc: SolcModule, input: string): CompiledContracts => {
  const output = JSON.parse(solc.compile(input, { import: resolveImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  const compiled: Record<string, CompiledContract> = {};
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    if (file.startsWith("@")) continue;
    for (const [name, contract] of Object.entries(contracts)) {
      if (contract.evm.bytecode.object.length === 0) continue;
      compiled[name] = {
        bytecode: `0x${contract.evm.bytecode.object}`,
        deployedBytecode: `0x${contract.evm.deployedBytecode.object}`,
      };
    }
  }
  return compiled;
};

/**
 * Compiles Solidity sources (file name -> source) with solc-js, caching the output under
 * `cacheDir/<name>-<key>.json`. The key hashes the sources, the compiler version and
 * `dependencyTag` (the versions of imported packages), so an edit or upgrade recompiles and
 * everything else reuses the cache: solc-js takes seconds, the cache milliseconds.
 */
export const compileSolidity = async (options: {
  readonly name: string;
  readonly sources: Readonly<Record<string, string>>;
  readonly cacheDir: string;
  readonly dependencyTag?: string;
}): Promise<CompiledContracts> => {
  const input = solcInput(options.sources);
  // The compiler's package version, not solc.version(): loading solc-js alone takes a second.
  const key = createHash("sha256")
    .update(`${packageVersion("solc")}\n${options.dependencyTag ?? ""}\n${input}`)
    .digest("hex")
    .slice(0, 16);
  const cachePath = join(options.cacheDir, `${options.name}-${key}.json`);
  try {
    return JSON.parse(await readFile(cachePath, "utf8")) as CompiledContracts;
  } catch {
    const compiled = compile(require("solc") as SolcModule, input);
    // Written whole then renamed, so a concurrent reader never sees half a file.
    const temporary = `${cachePath}.${process.pid}.tmp`;
    await mkdir(options.cacheDir, { recursive: true });
    await writeFile(temporary, JSON.stringify(compiled));
    await rename(temporary, cachePath);
    return compiled;
  }
};

/** Version of an installed package, for `dependencyTag`. */
export const packageVersion = (name: string): string =>
  (require(`${name}/package.json`) as { version: string }).version;
