import { readFile } from "node:fs/promises";
import { Context, Data, Effect, Layer } from "effect";
import { type ChainRegistry, makeChainRegistry } from "./ChainRegistry.js";
import { decodeChainsConfigFile } from "./ChainsConfig.js";

/** The chain registry of this deployment, loaded once at start. */
export class Chains extends Context.Tag("app/chains/Chains")<Chains, ChainRegistry>() {}

export class ChainsConfigError extends Data.TaggedError("ChainsConfigError")<{ readonly message: string }> {}

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
          new ChainsConfigError({ message: `CHAINS_CONFIG file "${path}" is invalid: ${error.message}` }),
      ),
    );
    const ids = file.chains.map((chain) => chain.chain_id);
    const names = file.chains.map((chain) => chain.name);
    if (new Set(ids).size !== ids.length || new Set(names).size !== names.length) {
      return yield* new ChainsConfigError({
        message: `CHAINS_CONFIG file "${path}" repeats a chain id or name.`,
      });
    }
    return makeChainRegistry(file);
  });

export const layerFromFile = (path: string) => Layer.effect(Chains, loadChainsFile(path));
