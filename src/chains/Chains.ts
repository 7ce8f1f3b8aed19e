import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { Context, Data, Effect, Layer, ParseResult } from "effect";
import { type ChainRegistry, makeChainRegistry } from "./ChainRegistry.js";
import { decodeChainsConfigFile } from "./ChainsConfig.js";

/** The chain registry of this deployment, loaded once at start. */
export class Chains extends Context.Tag("app/chains/Chains")<Chains, ChainRegistry>() {}

export class ChainsConfigError extends Data.TaggedError("ChainsConfigError")<{ readonly message: string }> {}

/**
 * Each problem of a chains file on a line of its own, at its path (`chains[1] (base).rpc.max_batch:
 * must be an integer from 1 to 1000 (got 5000)`), rather than Schema's tree of every union branch.
 */
const describeIssues = (json: unknown, error: ParseResult.ParseError): string => {
  const names = (json as { chains?: Array<{ name?: unknown }> } | null)?.chains;
  const all = ParseResult.ArrayFormatter.formatErrorSync(error).filter(
    // The `undefined` branch of every optional field fails too: it says nothing.
    (issue) => !issue.message.startsWith("Expected undefined"),
  );
  const key = (path: ReadonlyArray<PropertyKey>) => path.map(String).join("\u0000");
  const deeper = (path: ReadonlyArray<PropertyKey>) =>
    all.some(
      (other) => other.path.length > path.length && key(other.path.slice(0, path.length)) === key(path),
    );
  const worded = new Set(
    all.filter((issue) => !issue.message.startsWith("Expected ")).map((issue) => key(issue.path)),
  );
  const telling = all.filter(
    // A union's failed branches: the deepest issue, and our own words over Schema's, say what is wrong.
    (issue) =>
      !deeper(issue.path) && (!worded.has(key(issue.path)) || !issue.message.startsWith("Expected ")),
  );
  const lines = telling.map((issue) => {
    const path = issue.path
      .map((part, i) =>
        typeof part === "number"
          ? `[${part}]${i === 1 && typeof names?.[part]?.name === "string" ? ` (${names[part].name})` : ""}`
          : `${i === 0 ? "" : "."}${String(part)}`,
      )
      .join("");
    return `  ${path === "" ? "(file)" : path}: ${issue.message}`;
  });
  return [...new Set(lines)].join("\n");
};

/** Reads and validates a chains file; every problem is named in one message. */
export const loadChainsFile = (path: string): Effect.Effect<ChainRegistry, ChainsConfigError> =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: (cause) =>
        new ChainsConfigError({
          message: `CHAINS_CONFIG names "${path}", which cannot be read: ${String(cause)}`,
        }),
    });
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => new ChainsConfigError({ message: `CHAINS_CONFIG file "${path}" is not valid JSON.` }),
    });
    const file = yield* decodeChainsConfigFile(json).pipe(
      Effect.mapError(
        (error) =>
          new ChainsConfigError({
            message: `CHAINS_CONFIG file "${path}" is invalid:\n${describeIssues(json, error)}`,
          }),
      ),
    );
    const withoutRpc = file.chains.filter(
      (chain) => chain.rpc_url === undefined && chain.rpc_urls === undefined,
    );
    if (withoutRpc.length > 0) {
      return yield* new ChainsConfigError({
        message: `CHAINS_CONFIG file "${path}" is invalid: chain ${withoutRpc.map((c) => c.name).join(", ")} has no RPC endpoint: give "rpc_url" or "rpc_urls".`,
      });
    }
    const ids = file.chains.map((chain) => chain.chain_id);
    const names = file.chains.map((chain) => chain.name);
    if (new Set(ids).size !== ids.length || new Set(names).size !== names.length) {
      return yield* new ChainsConfigError({
        message: `CHAINS_CONFIG file "${path}" repeats a chain id or name.`,
      });
    }
    return { ...makeChainRegistry(file), directory: dirname(resolve(path)) };
  });

export const layerFromFile = (path: string) => Layer.effect(Chains, loadChainsFile(path));
