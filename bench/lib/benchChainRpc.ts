import { Effect, Exit, Logger, LogLevel, Scope } from "effect";
import { openChainRpc } from "../../src/chains/rpc/openChainRpc.js";
import { testRpcSettings } from "../../test/support/chainRpc.js";

/**
 * A chain's RPC access over `urls` (primary first) with the service's default settings, as
 * openChainRpc builds it for the service. With `monitor` its head polls and probes run, as in the
 * service; without, nothing is sent but what the benchmark asks, so a proxy counts exactly that.
 * Warnings are kept out of the report: the layer logs one per refused batch, dozens per read.
 */
export const benchChainRpc = async (
  urls: string | ReadonlyArray<string>,
  options: { readonly chainId: number; readonly monitor?: boolean },
) => {
  const quiet = <A, E>(effect: Effect.Effect<A, E>) =>
    effect.pipe(Logger.withMinimumLogLevel(LogLevel.Error));
  const scope = await Effect.runPromise(Scope.make());
  const { rpc, watch } = await Effect.runPromise(
    quiet(
      openChainRpc(
        testRpcSettings(typeof urls === "string" ? [urls] : urls, { chainId: options.chainId }),
      ).pipe(Scope.extend(scope)),
    ),
  );
  if (options.monitor === true) await Effect.runPromise(quiet(Effect.flatten(watch)));
  return { rpc, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) };
};
