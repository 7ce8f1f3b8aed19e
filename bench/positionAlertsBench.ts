import { aggregate3, splitCalls } from "../src/chains/multicall3.js";
import type { ManifestChain } from "../src/devnet/DevnetManifest.js";
import { lendingLensCode } from "../src/positions/lens/lendingLens.js";
import { decodeHealth, type HealthAccount, healthCall } from "../src/webhooks/alerts/healthCalls.js";
import { healthCrossings } from "../src/webhooks/alerts/healthCrossings.js";
import type { MovedMarkets } from "../src/webhooks/alerts/healthInputs.js";
import { accountsOf, advanceDebts, type KnownDebts, selectReads } from "../src/webhooks/alerts/knownDebts.js";
import type { LendingMarket } from "../src/webhooks/alerts/lendingMarkets.js";
import { readHealthFactors } from "../src/webhooks/alerts/readHealthFactors.js";
import { startTestDevnet } from "../test/support/devnetFixture.js";
import { anvilPid } from "./lib/anvilPid.js";
import { benchChainRpc } from "./lib/benchChainRpc.js";
import { processCpuMs } from "./lib/cpu.js";
import { median } from "./lib/stats.js";

const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,100000").split(",").map(Number);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? "3");
/** The 100k case is minutes of a shared machine's time: once per scenario unless asked otherwise. */
const repetitionsOf = (size: number) =>
  size >= 100_000 ? Number(process.env.BENCH_REPETITIONS_100K ?? "1") : REPETITIONS;

const DESIGN = { aave_v2: "aave", aave_v3: "aave", ctoken: "ctoken", comet: "comet" } as const;

/** The devnet chain's lending markets as the alerts see them (lendingMarkets.ts), registry order. */
const marketsOf = (chain: ManifestChain): ReadonlyArray<LendingMarket> =>
  chain.lending_markets.map((m) => ({
    address: m.address.toLowerCase(),
    design: DESIGN[m.kind],
    protocol: m.protocol,
    related: [],
  }));

/** Known debts over `wallets` where each `every`-th wallet has debt in one market (round robin). */
const knownWith = (
  wallets: ReadonlyArray<string>,
  markets: ReadonlyArray<LendingMarket>,
  every: number,
): KnownDebts => ({
  at: "0xparent",
  markets: "bench",
  debts: new Map(wallets.map((w, i) => [w, i % every === 0 ? [markets[(i / every) % markets.length]!] : []])),
  wallets: new Set(wallets),
});

interface Scenario {
  readonly name: string;
  readonly known: (wallets: ReadonlyArray<string>) => KnownDebts | undefined;
  readonly moved: MovedMarkets;
  readonly markets?: ReadonlyArray<LendingMarket>;
  /** Read as the previous design did: one aggregate3, every eth_call at once. */
  readonly allAtOnce?: boolean;
}

/**
 * What one block's `health_factor_below` evaluation costs for 1k, 10k and 100k watched lending
 * wallets on the devnet's Ethereum chain (Aave V2 and V3 pools, a cToken comptroller and a Comet: four
 * accounts a wallet), per kind of block:
 * - before: the previous design, every account of the two Aave pools read at every evaluated block;
 * - full read: every account in every market, as at the first block after a start (or after blocks
 *   another process planned), which builds the known debts;
 * - price block: with the known debts, only accounts with debt (10 % of the wallets borrowing in one
 *   market each, then all of them);
 * - quiet block: a Comet log and no price event, 10 % borrowers: only the Comet's borrowers.
 * Each line: the accounts read in the one multicall (eth_calls it is split into, wall time, the node's
 * CPU and this process's), and the decision around it (which accounts, crossings, known debts after).
 * Fresh addresses stand for the wallets without debt (the node answers them as it would any empty
 * account); an account with debt is read as one of the seeded debtors of its market, so the node runs
 * a borrower's whole computation for each.
 */
export const positionAlertsBench = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  const markets = marketsOf(chain);
  const aave = markets.filter((m) => m.design === "aave");
  const comet = markets.filter((m) => m.design === "comet");
  const debtors = new Map(
    markets.map((m) => [
      m.address,
      [
        ...new Set(
          chain.lending_positions
            .filter((p) => p.side === "debt" && p.market.toLowerCase() === m.address)
            .map((p) => p.owner.toLowerCase()),
        ),
      ],
    ]),
  );
  const { rpc, close } = await benchChainRpc(chain.rpc_url, { chainId: 1 });
  const node = anvilPid(chain.rpc_url);
  const lens = await lendingLensCode();
  const scenarios: ReadonlyArray<Scenario> = [
    {
      name: "before: Aave pools, every account",
      known: () => undefined,
      moved: "all",
      markets: aave,
      allAtOnce: true,
    },
    { name: "full read (after a start)", known: () => undefined, moved: "all" },
    { name: "price block, 10 % borrowers", known: (w) => knownWith(w, markets, 10), moved: "all" },
    { name: "price block, all borrowers", known: (w) => knownWith(w, markets, 1), moved: "all" },
    {
      name: "quiet block (Comet log), 10 % borrowers",
      known: (w) => knownWith(w, markets, 10),
      moved: new Set(comet.map((m) => m.address)),
    },
  ];
  const lines: Array<string> = [
    "block | wallets | accounts read | eth_calls | read ms (median) | node CPU ms | service CPU ms (read + decide) | decide ms",
  ];
  try {
    const head = (await rpc.request<{ number: string; hash: string }>(
      "eth_getBlockByNumber",
      ["latest", false],
      {
        head: true,
      },
    ))!;
    const block = { number: Number(head.number), hash: head.hash };
    for (const size of SIZES) {
      const wallets = Array.from(
        { length: size },
        (_, i) => `0x${(0xbe_0000_0000 + i).toString(16).padStart(40, "0")}`,
      );
      const watched = new Set(wallets);
      for (const scenario of scenarios) {
        const known = scenario.known(wallets);
        const measured = await measure(node, repetitionsOf(size), async () => {
          const debts = new Map(known?.debts ?? []);
          const planStarted = performance.now();
          const selection = selectReads(
            known,
            wallets,
            scenario.markets ?? markets,
            new Set(),
            scenario.moved,
          );
          // An account with debt is read as a seeded debtor of its market (one after the other).
          const accounts = accountsOf(selection).map((a, i): HealthAccount => {
            if (known === undefined) return a;
            const owners = debtors.get(a.pool)!;
            return { ...a, wallet: owners[i % owners.length]! };
          });
          const planMs = performance.now() - planStarted;
          const readStarted = performance.now();
          const health = scenario.allAtOnce
            ? (
                await aggregate3(
                  rpc,
                  accounts.map((a) => healthCall(a, lens)),
                  { block },
                )
              ).map((r, i) => ({
                ...accounts[i]!,
                healthFactor: decodeHealth(accounts[i]!.design, r) ?? null,
              }))
            : await readHealthFactors(rpc, accounts, block);
          const readMs = performance.now() - readStarted;
          if (health.length !== accounts.length)
            throw new Error(`${health.length} of ${accounts.length} accounts read`);
          const decideStarted = performance.now();
          healthCrossings([{ webhookId: "bench", threshold: 1.1, wallets }], health, {}, block);
          // Over the same watched wallets as the block before: nothing to forget (debtBook.watched).
          advanceDebts(debts, watched, selection, health, false);
          const decideMs = performance.now() - decideStarted + planMs;
          const calls = splitCalls(accounts.map((a) => healthCall(a, lens))).length;
          return { accounts: accounts.length, calls, readMs, decideMs };
        });
        lines.push(`${scenario.name} | ${size} | ${measured}`);
        // As it goes: the 100k lines take minutes.
        process.stderr.write(`${lines.at(-1)}\n`);
      }
    }
  } finally {
    await close();
    await devnet.stop();
  }
  return { name: "position-alerts", lines };
};

/** One evaluation's figures: the accounts read, the eth_calls they took, the read's and the decision's ms. */
interface Evaluation {
  readonly accounts: number;
  readonly calls: number;
  readonly readMs: number;
  readonly decideMs: number;
}

/** Median figures of `repetitions` evaluations, with the node's CPU and this process's around each. */
const measure = async (
  node: number | undefined,
  repetitions: number,
  evaluate: () => Promise<Evaluation>,
): Promise<string> => {
  const runs: Array<Evaluation & { nodeCpu: number; selfCpu: number }> = [];
  for (let i = 0; i < repetitions; i++) {
    const nodeBefore = node === undefined ? Number.NaN : processCpuMs(node);
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let evaluation: Evaluation;
    try {
      evaluation = await evaluate();
    } catch (error) {
      // A read that fails (the node refusing, or no connection in time) is a result too.
      const reason = error instanceof Error ? error.message : String(error);
      return `failed after ${(performance.now() - started).toFixed(0)} ms: ${reason}`;
    }
    const cpu = process.cpuUsage(cpuBefore);
    runs.push({
      ...evaluation,
      selfCpu: (cpu.user + cpu.system) / 1000,
      nodeCpu: node === undefined ? Number.NaN : processCpuMs(node) - nodeBefore,
    });
  }
  const med = (pick: (r: (typeof runs)[number]) => number, digits = 0) =>
    median(runs.map(pick)).toFixed(digits);
  return `${runs[0]!.accounts} | ${runs[0]!.calls} | ${med((r) => r.readMs)} | ${med((r) => r.nodeCpu)} | ${med((r) => r.selfCpu)} | ${med((r) => r.decideMs, 1)}`;
};
