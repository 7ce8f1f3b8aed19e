import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Hex } from "viem";

/** Creation bytecode of one contract we compile ourselves (ABIs live in `abis.ts`, typed). */
export interface CompiledContract {
  readonly bytecode: Hex;
}

/** Our contracts by name (`DevToken`, `Bytes32Token`, ...). */
export type CompiledContracts = Readonly<Record<string, CompiledContract>>;

const require = createRequire(import.meta.url);
const CONTRACTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "contracts");

interface SolcModule {
  version: () => string;
  compile: (
    input: string,
    callbacks: { import: (path: string) => { contents: string } | { error: string } },
  ) => string;
}

interface SolcOutput {
  errors?: ReadonlyArray<{ severity: string; formattedMessage: string }>;
  contracts?: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
}

const readSources = async (): Promise<Record<string, { content: string }>> => {
  const files = (await readdir(CONTRACTS_DIR)).filter((f) => f.endsWith(".sol")).sort();
  const entries = await Promise.all(
    files.map(
      async (file) => [file, { content: await readFile(join(CONTRACTS_DIR, file), "utf8") }] as const,
    ),
  );
  return Object.fromEntries(entries);
};

const resolveImport = (path: string): { contents: string } | { error: string } => {
  try {
    return { contents: readFileSync(require.resolve(path), "utf8") };
  } catch {
    return { error: `import not found: ${path}` };
  }
};

const solcInput = (sources: Record<string, { content: string }>): string =>
  JSON.stringify({
    language: "Solidity",
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: "cancun",
      outputSelection: { "*": { "*": ["evm.bytecode.object"] } },
    },
  });

const compile = (solc: SolcModule, input: string): CompiledContracts => {
  const output = JSON.parse(solc.compile(input, { import: resolveImport })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join("\n")}`);
  const compiled: Record<string, CompiledContract> = {};
  for (const [file, contracts] of Object.entries(output.contracts ?? {})) {
    if (!file.startsWith("@")) {
      for (const [name, contract] of Object.entries(contracts)) {
        if (contract.evm.bytecode.object.length > 0)
          compiled[name] = { bytecode: `0x${contract.evm.bytecode.object}` };
      }
    }
  }
  return compiled;
};

/**
 * Compiles `src/devnet/contracts/*.sol` (with OpenZeppelin imports from node_modules) using solc-js, caching
 * the bytecode under `buildDir/<key>.json`. The key hashes our sources, the OpenZeppelin version and the
 * compiler version, so an edit or upgrade recompiles and everything else reuses the cache (solc-js takes
 * seconds; the cache takes milliseconds).
 */
export const compileContracts = async (buildDir: string): Promise<CompiledContracts> => {
  const sources = await readSources();
  const solc = require("solc") as SolcModule;
  const ozVersion = (require("@openzeppelin/contracts/package.json") as { version: string }).version;
  const input = solcInput(sources);
  const key = createHash("sha256")
    .update(`${solc.version()}\n${ozVersion}\n${input}`)
    .digest("hex")
    .slice(0, 16);
  const cachePath = join(buildDir, `contracts-${key}.json`);
  try {
    return JSON.parse(await readFile(cachePath, "utf8")) as CompiledContracts;
  } catch {
    const compiled = compile(solc, input);
    await mkdir(buildDir, { recursive: true });
    await writeFile(`${cachePath}.tmp`, JSON.stringify(compiled));
    await rename(`${cachePath}.tmp`, cachePath);
    return compiled;
  }
};
