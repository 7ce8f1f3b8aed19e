import { rm } from "node:fs/promises";
import { Effect, Option } from "effect";
import { Level as ClassicLevel } from "level";
import { type Hex, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callAdmin } from "../../../src/admin/AdminClient.js";
import { adminChainsStatus, adminIndexWallet } from "../../../src/contracts/Admin.js";
import { indexedWalletKey, walletTokenKey, walletTokenPrefix } from "../../../src/indexer/indexKeys.js";
import { freePort } from "../../../src/lib/freePort.js";
import { levelPath } from "../../../src/storage/dataDirDb.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { devnetWallet } from "../../support/devnetWallet.js";
import {
  ALL_CHAIN_IDS,
  expectSameAnswers,
  type RealNodeEnv,
  startRealNodeEnv,
  type WalletAnswers,
} from "../../support/realNodeFlows.js";
import { eventually } from "../../support/serviceHarness.js";
import type { Answer, Caller } from "../../support/webhookEnv.js";

let devnet: TestDevnet;
let env: RealNodeEnv;
let metricsPort: number;

beforeAll(async () => {
  devnet = await startTestDevnet();
  metricsPort = await freePort();
  env = await startRealNodeEnv(devnet, new Map(), {
    fromHead: true,
    chainFields: { index_wallets: "discovered" },
    settings: { metricsPort: Option.some(metricsPort) },
  });
}, 400_000);

afterAll(async () => {
  await env?.stop();
  await devnet?.stop();
});

const erc20 = parseAbi(["function transfer(address to, uint256 amount) returns (bool)"]);

/** A transfer of `amount` of `token` from the devnet's whale account on chain 1. */
const send = (token: string, to: string, amount: bigint) =>
  devnetWallet(env.chain(1), env.devnet.manifest.accounts[1]!.private_key).writeContract({
    address: token as Hex,
    abi: erc20,
    functionName: "transfer",
    args: [to as Hex, amount],
  });

/** What the worker's index records of `wallet` (admin.index.wallet: read as it is, nothing discovered). */
const indexedTokens = async (wallet: string) => {
  const admin = await env.nats.connectAs("admin");
  try {
    return (await Effect.runPromise(callAdmin(admin, adminIndexWallet, { wallet }))).tokens;
  } finally {
    await admin.close();
  }
};

const inProgress = (answer: Answer) =>
  ((answer.json.warnings ?? []) as ReadonlyArray<{ code: string }>).some(
    (w) => w.code === "DISCOVERY_IN_PROGRESS",
  );

/** The wallet's answers once its discovery is done on every chain (asked every 250 ms, 120 s at most). */
const completeAnswers = async (call: Caller, wallet: string): Promise<WalletAnswers> => {
  const started = Date.now();
  for (;;) {
    const answers = {
      balances: await call(
        "GET",
        `/v1/evm/balances/${wallet}?chain_ids=${ALL_CHAIN_IDS}&historical_prices=24,720&metadata=pools`,
      ),
      positions: await call("GET", `/beta/evm/defi/positions/${wallet}?chain_ids=${ALL_CHAIN_IDS}`),
    };
    expect(answers.balances.status).toBe(200);
    expect(answers.positions.status).toBe(200);
    if (!inProgress(answers.balances) && !inProgress(answers.positions)) return answers;
    if (Date.now() - started > 120_000) throw new Error(`${wallet}: discovery still running after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

const amountOf = (answer: Answer, token: string): string | undefined =>
  (answer.json.balances as ReadonlyArray<{ chain_id: number; address: string; amount: string }>).find(
    (entry) => entry.chain_id === 1 && entry.address === token,
  )?.amount;

describe("a chain indexed for the wallets discovery met (`index_wallets: discovered`)", {
  timeout: 300_000,
}, () => {
  it("behavior: seeded wallets answer as a service that indexed the whole history does, and blocks record only the wallets asked about, across a restart", async () => {
    for (const name of ["whale", "every_type"] as const)
      expectSameAnswers(
        name,
        await completeAnswers(env.call, env.chain(1).wallets[name]!.toLowerCase()),
        env.direct.get(name)!,
      );

    const chain = env.chain(1);
    const usdc = chain.tokens.USDC!.address.toLowerCase();
    const dai = chain.tokens.DAI!.address.toLowerCase();
    const asked = chain.wallets.empty!.toLowerCase();
    // Never asked about before the restart: its transfer is in a block the index applies.
    const unasked = `0x${"e7".repeat(20)}`;
    expect(amountOf((await completeAnswers(env.call, asked)).balances, usdc)).toBeUndefined();

    // The three wallets asked about so far, and no other, are recorded on the chain.
    const indexedWallets = async () =>
      (
        (await env.call("GET", "/healthz")).json.chains as ReadonlyArray<{
          chain_id: number;
          indexed_wallets?: number;
        }>
      ).find((c) => c.chain_id === 1)?.indexed_wallets;
    expect(await indexedWallets()).toBe(3);
    // The operator's chain status (the TUI's and the admin CLI's) and the metrics say the same.
    const admin = await env.nats.connectAs("admin");
    try {
      const { chains } = await Effect.runPromise(callAdmin(admin, adminChainsStatus, {}));
      expect(chains.find((c) => c.chain_id === 1)).toMatchObject({ indexed_wallets: 3 });
    } finally {
      await admin.close();
    }
    expect(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text()).toMatch(
      /^svc_indexed_wallets\{chain_id="1",chain="[a-z]+"\} 3$/m,
    );

    await send(usdc, unasked, 7_654_321n);
    await send(usdc, asked, 1_234_567n);
    // No sweep runs again for a wallet whose discovery is done: the index's record of the touch shows it.
    await eventually(
      async () =>
        amountOf(await env.call("GET", `/v1/evm/balances/${asked}?chain_ids=1`), usdc) === "1234567",
      30_000,
      "the asked wallet's transfer in its answer",
    );

    await env.restart(async () => {
      const db = new ClassicLevel<string, unknown>(levelPath(env.dataDir), { valueEncoding: "json" });
      try {
        expect(await db.get(indexedWalletKey(1, asked))).toEqual(expect.any(Number));
        expect(await db.get(walletTokenKey(asked, 1, usdc))).toMatchObject({ standard: "erc20" });
        const unaskedKeys = await db
          .keys({ gte: walletTokenPrefix(unasked), lt: `${walletTokenPrefix(unasked)}~` })
          .all();
        expect(unaskedKeys).toEqual([]);
      } finally {
        await db.close();
      }
    });

    // Its first request finds what the index never recorded, from the chain.
    expect(amountOf((await completeAnswers(env.call, unasked)).balances, usdc)).toBe("7654321");
    expect(await indexedWallets()).toBe(4);
    // The mark outlived the restart: the asked wallet's next transfer is recorded too.
    await send(dai, asked, 10n ** 18n);
    await eventually(
      async () =>
        amountOf(await env.call("GET", `/v1/evm/balances/${asked}?chain_ids=1`), dai) ===
        "1000000000000000000",
      30_000,
      "the asked wallet's transfer after the restart",
    );
  });
  it("behavior: a worker that starts on an empty index records the wallets of `positions` webhooks from its address book, which no announcement gave it", async () => {
    const usdc = env.chain(1).tokens.USDC!.address.toLowerCase();
    const watched = `0x${"b0".repeat(20)}`;
    const created = await env.call("POST", "/beta/evm/subscriptions/webhooks", {
      name: "health",
      url: "http://127.0.0.1:9/hooks",
      type: "positions",
      addresses: [watched],
      chain_ids: [1],
      conditions: { health_factor_below: 1.1 },
    });
    expect(created.status).toBe(200);
    // Its LevelDB gone, the worker rebuilds its index from the stream; the announcement is not replayed.
    await env.restart(() => rm(levelPath(env.dataDir), { recursive: true, force: true }));

    // Nothing asks about the wallet from here on: only the address book can have marked it.
    await send(usdc, watched, 4_242n);
    await eventually(
      async () => (await indexedTokens(watched)).some((t) => t.chain_id === 1 && t.token === usdc),
      30_000,
      "the watched wallet's transfer recorded in the new index",
    );
  });
});
