import { Effect, Layer, Option } from "effect";
import { AppConfig } from "../AppConfig.js";
import { Chains, loadChainsFile } from "../chains/Chains.js";
import type { RunningDevnet } from "../devnet/Devnet.js";
import { promiseLog } from "../lib/promiseLog.js";

/**
 * The chains to serve: the file named by CHAINS_CONFIG, or else the embedded
 * devnet, started now and stopped with the scope. Returns the running devnet
 * (when there is one) so that its demo key can be provisioned.
 */
export const chainsSource = Effect.gen(function* () {
  const config = yield* AppConfig;
  if (Option.isSome(config.chainsConfig)) {
    const registry = yield* loadChainsFile(config.chainsConfig.value);
    return { layer: Layer.succeed(Chains, registry), devnet: undefined as RunningDevnet | undefined };
  }
  yield* Effect.logInfo("CHAINS_CONFIG is unset: starting the embedded devnet");
  // Loaded only when needed: deployments with real RPC nodes never load the devnet code.
  const { devnetResource } = yield* Effect.promise(() => import("../devnet/Devnet.js"));
  const log = yield* promiseLog;
  const devnet = yield* devnetResource({
    dataDir: config.dataDir,
    log: (line: string) => log.info(line),
    // A person watching a first start sees each chain's step on one line redrawn in place.
    ...(process.stderr.isTTY ? { live: process.stderr } : {}),
  });
  const registry = yield* loadChainsFile(devnet.chainsConfigPath);
  yield* Effect.logInfo(`devnet manifest: ${devnet.manifestPath}`);
  return { layer: Layer.succeed(Chains, registry), devnet };
});
