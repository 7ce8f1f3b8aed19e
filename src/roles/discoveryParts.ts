import { Effect, Runtime } from "effect";
import { Chains } from "../chains/Chains.js";
import type { DiscoveryParts } from "../discovery/Discovery.js";
import { makeTokenLists } from "../discovery/tokenLists.js";
import { POSITION_FINDERS } from "../positions/discovery/positionFinders.js";

/**
 * The token lists and position finders discovery is built from, for the chains this process
 * serves. Operator list files are read now: one that is missing or malformed stops the start with
 * a sentence naming the chain and the path; URL lists are fetched in the background and kept
 * fresh until the scope closes.
 */
export const discoveryParts = Effect.gen(function* () {
  const registry = yield* Chains;
  const runtime = yield* Effect.runtime<never>();
  const lists = yield* Effect.acquireRelease(
    Effect.tryPromise({
      try: () =>
        makeTokenLists(registry.chains, {
          baseDir: registry.directory ?? process.cwd(),
          warn: (message) => Runtime.runFork(runtime)(Effect.logWarning(message)),
        }),
      catch: (cause) => new Error(cause instanceof Error ? cause.message : String(cause)),
    }),
    (lists) => Effect.sync(() => lists.close()),
  );
  const parts: DiscoveryParts = {
    universe: { listed: (chainId) => lists.tokensFor(chainId).map((token) => token.address) },
    finders: POSITION_FINDERS,
  };
  return parts;
});
