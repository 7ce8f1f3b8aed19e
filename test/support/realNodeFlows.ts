import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Effect } from "effect";
import { expect } from "vitest";
import type { AppSettings } from "../../src/AppConfig.js";
import { createKey } from "../../src/api/keys/KeyStore.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { adminBuckets } from "./anvilService.js";
import { fullHistoryChainsFile, rewriteChainsFile } from "./chainsFile.js";
import type { TestDevnet } from "./devnetFixture.js";
import { startTestNats, type TestNats } from "./natsServer.js";
import { type ProviderProxy, type ProviderProxyOptions, startProviderProxy } from "./providerProxy.js";
import { eventually, type RunningService, startService } from "./serviceHarness.js";
import { type Answer, type Caller, callerFor } from "./webhookEnv.js";

/** Every devnet chain, as `chain_ids` names them. */
export const ALL_CHAIN_IDS = "1,8453,10,57073";
/** Seeded wallets holding every kind of token and position between them. */
export const FLOW_WALLETS = [
  "whale",
  "v3_lp",
  "liquidity",
  "lending_all",
  "every_type",
  "vault_holder",
  "pendle_holder",
] as const;

/** One wallet's balances (with historical prices) and positions on every chain. */
export interface WalletAnswers {
  readonly balances: Answer;
  readonly positions: Answer;
}

export const readWalletAnswers = async (
  call: Caller,
  chain: ManifestChain,
): Promise<ReadonlyMap<string, WalletAnswers>> => {
  const out = new Map<string, WalletAnswers>();
  for (const name of FLOW_WALLETS) {
    const wallet = chain.wallets[name]!.toLowerCase();
    out.set(name, {
      balances: await call(
        "GET",
        `/v1/evm/balances/${wallet}?chain_ids=${ALL_CHAIN_IDS}&historical_prices=24,720&metadata=pools`,
      ),
      positions: await call("GET", `/beta/evm/defi/positions/${wallet}?chain_ids=${ALL_CHAIN_IDS}`),
    });
  }
  return out;
};

type Entry = Readonly<Record<string, unknown>> & { readonly chain_id: number; readonly address?: string };

/**
 * What must match between two services: the entries (and positions), never times or cursors, and
 * links without the service's own address (each test service has its own port).
 */
export const entriesOf = (answer: Answer, key: "balances" | "positions"): ReadonlyArray<Entry> =>
  JSON.parse(
    JSON.stringify(answer.json[key] ?? []).replace(/http:\/\/127\.0\.0\.1:\d+/g, "{service}"),
  ) as ReadonlyArray<Entry>;

/**
 * Asserts a wallet's answers from a service behind proxies equal the direct service's, chain by
 * chain; `partialChains` (history the nodes no longer keep) are held only to their native and
 * configured-token amounts, which need no history.
 */
export const expectSameAnswers = (
  name: string,
  proxied: WalletAnswers,
  direct: WalletAnswers,
  partialChains: ReadonlyMap<number, ReadonlySet<string>> = new Map(),
) => {
  expect(proxied.balances.status, `${name} balances`).toBe(200);
  expect(proxied.positions.status, `${name} positions`).toBe(200);
  expect(proxied.balances.json.errors, `${name} balances errors`).toBeUndefined();
  expect(proxied.positions.json.errors, `${name} positions errors`).toBeUndefined();
  const whole = (entries: ReadonlyArray<Entry>) => entries.filter((e) => !partialChains.has(e.chain_id));
  expect(whole(entriesOf(proxied.balances, "balances")), `${name} balances`).toEqual(
    whole(entriesOf(direct.balances, "balances")),
  );
  expect(whole(entriesOf(proxied.positions, "positions")), `${name} positions`).toEqual(
    whole(entriesOf(direct.positions, "positions")),
  );
  for (const [chainId, tokens] of partialChains) {
    const amounts = (answer: Answer) =>
      entriesOf(answer, "balances")
        .filter((e) => e.chain_id === chainId && tokens.has(String(e.address)))
        .map((e) => `${e.address} ${e.amount}`)
        // Without prices (no pools known from history) the order by value differs: compare as sets.
        .sort();
    expect(amounts(proxied.balances), `${name} on chain ${chainId}`).toEqual(amounts(direct.balances));
  }
};

/** A chain's endpoints as proxies of given styles in front of its anvil (the first is the primary). */
export type ProxyPlan = ReadonlyMap<number, ReadonlyArray<Omit<ProviderProxyOptions, "target">>>;

export interface RealNodeEnv {
  readonly devnet: TestDevnet;
  readonly nats: TestNats;
  readonly service: RunningService;
  readonly call: Caller;
  /**
   * Stops the proxied service and starts it again on the same data directory; `service` and `call`
   * are then the new one's. `whileStopped` runs in between (its LevelDB is then free to open).
   */
  readonly restart: (whileStopped?: () => Promise<void>) => Promise<void>;
  /** The proxied service's data directory. */
  readonly dataDir: string;
  /** Each chain's proxies, in the order of its endpoints. */
  readonly proxies: ReadonlyMap<number, ReadonlyArray<ProviderProxy>>;
  /** The answers the service gave straight from anvil, before the proxies. */
  readonly direct: ReadonlyMap<string, WalletAnswers>;
  readonly chain: (id: number) => ManifestChain;
  readonly stop: () => Promise<void>;
}

/** A service with a key of its own on `nats`, once `/healthz` says every chain is ready. */
const startReadyService = async (nats: TestNats, chainsConfig: string, settings = {}, dataDir?: string) => {
  const service = await startService(nats, {
    chainsConfig,
    settings,
    ...(dataDir === undefined ? {} : { dataDir }),
  });
  const { key } = await Effect.runPromise(
    createKey(await adminBuckets(await nats.connectAs("admin")), "flows"),
  );
  await eventually(
    async () =>
      ((await (await fetch(`${service.baseUrl}/healthz`)).json()) as { status: string }).status === "ok",
    150_000,
    "healthz ok",
  );
  return { service, call: callerFor(service.baseUrl, key) };
};

/**
 * The seeded devnet read twice: by a service straight on anvil that indexed the whole history (its
 * answers kept as the reference), then by a service reading every chain through proxies that
 * refuse as `plan` says, from block 0 too unless `fromHead`, which tests use for the rest.
 */
export const startRealNodeEnv = async (
  devnet: TestDevnet,
  plan: ProxyPlan,
  options: {
    /**
     * Configure the chains as the devnet's own file does, as a real chain is: without `start_block`,
     * so the service starts at the head and must discover what the seeded history left in each wallet.
     */
    readonly fromHead?: boolean;
    /** Settings of the proxied service besides the webhook ones. */
    readonly settings?: Partial<AppSettings>;
    /** Fields set on every chain of the proxied service's chains file (`index_wallets`, say). */
    readonly chainFields?: Readonly<Record<string, unknown>>;
  } = {},
): Promise<RealNodeEnv> => {
  const chain = (id: number) => devnet.manifest.chains.find((c) => c.chain_id === id)!;
  const referenceNats = await startTestNats();
  // The reference reads the whole history: what discovery and the proxies must agree with.
  const fullHistory = await fullHistoryChainsFile(devnet.devnet.chainsConfigPath);
  const reference = await startReadyService(referenceNats, fullHistory);
  const direct = await readWalletAnswers(reference.call, chain(1));
  await reference.service.stop();
  await referenceNats.stop();

  const proxies = new Map<number, Array<ProviderProxy>>();
  for (const [chainId, styles] of plan)
    proxies.set(
      chainId,
      await Promise.all(
        styles.map((style) => startProviderProxy({ target: chain(chainId).rpc_url, ...style })),
      ),
    );
  const chainsConfig = await rewriteChainsFile(
    options.fromHead === true ? devnet.devnet.chainsConfigPath : fullHistory,
    new Map(
      [...proxies].map(([id, list]) => [id, list.length === 1 ? list[0]!.url : list.map((p) => p.url)]),
    ),
    new Map(devnet.manifest.chains.map((c) => [c.chain_id, { ...options.chainFields }])),
  );
  const nats = await startTestNats();
  const settings = { webhookAllowHttp: true, webhookAllowedHosts: ["127.0.0.0/8"], ...options.settings };
  // A data directory of its own, kept across a restart and removed with the environment.
  const dataDir = await mkdtemp(join(tmpdir(), "svc-data-"));
  let running = await startReadyService(nats, chainsConfig, settings, dataDir);
  return {
    devnet,
    nats,
    get service() {
      return running.service;
    },
    call: (...args) => running.call(...args),
    restart: async (whileStopped) => {
      await running.service.stop();
      await whileStopped?.();
      running = await startReadyService(nats, chainsConfig, settings, dataDir);
    },
    dataDir,
    proxies,
    direct,
    chain,
    stop: async () => {
      await running.service.stop();
      for (const list of proxies.values()) for (const proxy of list) await proxy.stop();
      await nats.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
};
