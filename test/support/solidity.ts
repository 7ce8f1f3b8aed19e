import { createRequire } from "node:module";
import type { Hex } from "viem";

const require = createRequire(import.meta.url);
const solc = require("solc") as { compile: (input: string) => string };

/** Compiles one self-contained Solidity source with solc-js; returns each contract's creation bytecode. */
export const compileSolidity = (source: string): Record<string, Hex> => {
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "Test.sol": { content: source } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { "*": { "*": ["evm.bytecode.object"] } },
        },
      }),
    ),
  ) as {
    errors?: Array<{ severity: string; formattedMessage: string }>;
    contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  return Object.fromEntries(
    Object.entries(output.contracts["Test.sol"] ?? {}).map(([name, c]) => [
      name,
      `0x${c.evm.bytecode.object}` as Hex,
    ]),
  );
};
