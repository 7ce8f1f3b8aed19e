import { decodeFunctionData, type Hex, parseAbi, toFunctionSelector } from "viem";
import { MULTICALL3_ADDRESS } from "../../src/chains/multicall3.js";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { SWEEP_LENS_ADDRESS } from "../../src/discovery/lens/sweepLens.js";
import { sweepBalances } from "../../src/discovery/sweepBalances.js";
import { directChainRpc } from "../../test/support/chainRpc.js";
import type { RecordedCall } from "./rpcRecorder.js";
import { percentile } from "./stats.js";

const AGGREGATE3 = "0x82ad56cb";
const GET_ETH_BALANCE = toFunctionSelector("getEthBalance(address)").slice(2);
/** What a factory pool lookup asks (src/pricing/factoryLookups.ts): nothing else goes to a registry contract in one. */
const LOOKUP_SELECTORS = new Set(
  [
    "feeAmountTickSpacing(uint24)",
    "getPair(address,address)",
    "getPool(address,address,uint24)",
    "poolByPair(address,address)",
    "getSlot0(bytes32)",
  ].map((signature) => toFunctionSelector(signature).slice(2)),
);
const SWEEP_ABI = parseAbi(["function balances(address owner, address[] tokens) view returns (uint256[])"]);

/** The inner calls of an `aggregate3` calldata: each target and the first 4 bytes (hex) of its data. */
const innerCalls = (data: string): ReadonlyArray<{ readonly target: string; readonly selector: string }> => {
  const hex = data.slice(10);
  const read = (byte: number) => Number.parseInt(hex.slice(byte * 2, byte * 2 + 64), 16);
  const start = read(0);
  const count = read(start);
  const head = start + 32;
  const out: Array<{ target: string; selector: string }> = [];
  for (let i = 0; i < count; i++) {
    const tuple = head + read(head + i * 32);
    const bytes = tuple + read(tuple + 64);
    out.push({
      target: `0x${hex.slice(tuple * 2 + 24, tuple * 2 + 64)}`,
      selector: hex.slice((bytes + 32) * 2, (bytes + 32) * 2 + 8),
    });
  }
  return out;
};

/** An `eth_call`'s transaction. */
const txOf = (call: RecordedCall) => (call.params[0] ?? {}) as { to?: string; data?: string; input?: string };

/**
 * What a service sent one chain's node for a wallet's first answer, by what it is for: the sweep
 * (`eth_call`s to the sweep lens), factory pool lookups for pricing (lookup-only `aggregate3`s sent
 * after the sweep was answered: a balances answer holds the position finders back, so none of
 * their reads of a pool's address come in between), and the balances-and-prices multicall
 * (the `aggregate3` that starts with the wallet's `getEthBalance`), which together are the work a
 * client answering the same question would have to do; and the rest (chain lists, position
 * finders, token metadata and vault probes of found tokens, the log scan).
 */
export interface ChainCalls {
  readonly sweep: ReadonlyArray<RecordedCall>;
  readonly lookups: ReadonlyArray<RecordedCall>;
  readonly holdings: ReadonlyArray<RecordedCall>;
  readonly otherCalls: number;
  readonly getLogs: number;
  /** Tokens the sweep asked about. */
  readonly swept: number;
  /** Request bytes by kind. */
  readonly bytes: {
    readonly sweep: number;
    readonly lookups: number;
    readonly holdings: number;
    readonly other: number;
  };
}

export const classifyCalls = (calls: ReadonlyArray<RecordedCall>, wallet: string): ChainCalls => {
  const sweep: Array<RecordedCall> = [];
  const lookups: Array<RecordedCall> = [];
  const holdings: Array<RecordedCall> = [];
  let otherCalls = 0;
  let getLogs = 0;
  let swept = 0;
  const bytes = { sweep: 0, lookups: 0, holdings: 0, other: 0 };
  const walletWord = wallet.slice(2).toLowerCase().padStart(64, "0");
  // Pricing asks the factories once the sweep's tokens are known, after its last answer.
  const sweptAt = Math.max(
    ...calls
      .filter((c) => c.method === "eth_call" && txOf(c).to?.toLowerCase() === SWEEP_LENS_ADDRESS)
      .map((c) => c.answeredAt),
  );
  for (const call of calls) {
    if (call.method === "eth_getLogs") getLogs++;
    if (call.method !== "eth_call") continue;
    const tx = txOf(call);
    const data = (tx.data ?? tx.input ?? "0x").toLowerCase();
    const to = tx.to?.toLowerCase();
    if (to === SWEEP_LENS_ADDRESS) {
      sweep.push(call);
      bytes.sweep += call.body.length;
      swept += decodeFunctionData({ abi: SWEEP_ABI, data: data as Hex }).args[1].length;
      continue;
    }
    if (to === MULTICALL3_ADDRESS && data.startsWith(AGGREGATE3)) {
      const inner = innerCalls(data);
      const first = inner[0];
      if (
        first?.target === MULTICALL3_ADDRESS &&
        first.selector === GET_ETH_BALANCE &&
        data.includes(`${GET_ETH_BALANCE}${walletWord}`)
      ) {
        holdings.push(call);
        bytes.holdings += call.body.length;
        continue;
      }
      if (
        call.at > (Number.isFinite(sweptAt) ? sweptAt : Number.NEGATIVE_INFINITY) &&
        inner.length > 0 &&
        inner.every((c) => LOOKUP_SELECTORS.has(c.selector))
      ) {
        lookups.push(call);
        bytes.lookups += call.body.length;
        continue;
      }
    }
    otherCalls++;
    bytes.other += call.body.length;
  }
  return { sweep, lookups, holdings, otherCalls, getLogs, swept, bytes };
};

const post = async (url: string, body: Buffer) => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"error"'))
    throw new Error(`replay refused: ${text.slice(0, 200)}`);
};

/** A chain's node and what a wallet's first answer asked it, for a replay. */
export interface ChainReplay {
  readonly url: string;
  readonly calls: ChainCalls;
}

/**
 * The cheapest honest replay of a first answer's sweep and pricing: on every chain at once, the
 * recorded sweep `eth_call`s sent together, then the factory lookups together, then the balances
 * and prices multicall (each step needs the one before: what to price depends on what the sweep
 * found, prices on the pools found); the bodies exactly as the service sent them, straight to
 * the node. Wall time of one round in ms.
 */
export const replaySweepAndPricing = async (chains: ReadonlyArray<ChainReplay>): Promise<number> => {
  const start = performance.now();
  await Promise.all(
    chains.map(async ({ url, calls }) => {
      await Promise.all(calls.sweep.map((c) => post(url, c.body)));
      await Promise.all(calls.lookups.map((c) => post(url, c.body)));
      await Promise.all(calls.holdings.map((c) => post(url, c.body)));
    }),
  );
  return performance.now() - start;
};

/** The sweep's tokens and block on one chain, as the recorded calls name them. */
const sweepInput = (calls: ChainCalls) => {
  const tokens = calls.sweep.flatMap(
    (c) =>
      decodeFunctionData({ abi: SWEEP_ABI, data: (txOf(c).data ?? txOf(c).input) as Hex })
        .args[1] as ReadonlyArray<string>,
  );
  const at = calls.sweep[0]?.params[1];
  const number =
    typeof at === "string" && at.startsWith("0x") ? Number.parseInt(at, 16) : Number.MAX_SAFE_INTEGER;
  const hash = typeof at === "object" && at !== null ? (at as { blockHash?: string }).blockHash : undefined;
  return { tokens, block: hash === undefined ? { number } : { number, hash } };
};

/** A ChainRpc straight to each node, for `replayWithSweepBalances`: kept across wallets, as a service keeps its own. */
export const replayRpcs = (urls: ReadonlyArray<string>) => {
  const opened = urls.map((url) => directChainRpc(url));
  return {
    rpcs: opened.map((o) => o.rpc),
    close: () => Promise.all(opened.map((o) => o.close())).then(() => undefined),
  };
};

/**
 * The same replay with the sweep made by the service's own `sweepBalances` over a ChainRpc straight
 * to each node (`rpcs`, in the order of `chains`; the same tokens, at the same block), the pricing
 * bodies as recorded: what the service's client layer adds to the raw replay. p50 of `rounds`.
 */
export const replayWithSweepBalances = async (
  chains: ReadonlyArray<ChainReplay & { readonly wallet: string }>,
  rpcs: ReadonlyArray<ChainRpc>,
  rounds: number,
) => {
  const samples: Array<number> = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    await Promise.all(
      chains.map(async ({ url, calls, wallet }, c) => {
        if (calls.sweep.length > 0) {
          const { tokens, block } = sweepInput(calls);
          await sweepBalances(rpcs[c]!, wallet, tokens, block);
        }
        await Promise.all(calls.lookups.map((call) => post(url, call.body)));
        await Promise.all(calls.holdings.map((call) => post(url, call.body)));
      }),
    );
    samples.push(performance.now() - start);
  }
  return percentile(
    samples.sort((a, b) => a - b),
    50,
  );
};

/**
 * p50 of replay rounds: at least `min`, then more until `budgetMs` is spent or `max` are done. No
 * untimed round first: the recorded and the timed services have just sent the node the same calls.
 */
export const replayP50 = async (
  chains: ReadonlyArray<ChainReplay>,
  options: { readonly min: number; readonly max: number; readonly budgetMs: number },
): Promise<number> => {
  const samples: Array<number> = [];
  const end = performance.now() + options.budgetMs;
  while (samples.length < options.min || (samples.length < options.max && performance.now() < end))
    samples.push(await replaySweepAndPricing(chains));
  return percentile(
    samples.sort((a, b) => a - b),
    50,
  );
};

/** Where a first answer's time went, in ms from its request, as the calls its service sent show it. */
export interface FirstAnswerPhases {
  /** Until the first call to any node (gateway, bus, the discovery job's start, the universe read). */
  readonly beforeCalls: number;
  /** From there until the sweep's last eth_call was answered. */
  readonly sweep: number;
  /** From there until the first pricing call: found tokens' metadata and vault probes, writes, the read's start. */
  readonly afterSweep: number;
  /** First factory lookup or balances-and-prices multicall sent to the last answered. */
  readonly pricing: number;
  /** From there until the answer was back. */
  readonly afterCalls: number;
}

/**
 * The phases of one first answer (`start`..`end`, performance.now()) on the chain whose pricing
 * finished last (the one the answer waited for), from the calls sent to each chain's node
 * meanwhile (`sent`, by chain, in the order of `classified`); undefined when that chain had no
 * sweep or no pricing call to mark a phase's bounds.
 */
export const firstAnswerPhases = (
  sent: ReadonlyArray<ReadonlyArray<RecordedCall>>,
  classified: ReadonlyArray<ChainCalls>,
  start: number,
  end: number,
): FirstAnswerPhases | undefined => {
  const pricingOf = (c: ChainCalls) => [...c.lookups, ...c.holdings];
  const lastDone = (calls: ReadonlyArray<RecordedCall>) => Math.max(...calls.map((c) => c.answeredAt));
  const firstSent = (calls: ReadonlyArray<RecordedCall>) => Math.min(...calls.map((c) => c.at));
  let critical = -1;
  classified.forEach((c, i) => {
    if (
      pricingOf(c).length > 0 &&
      (critical < 0 || lastDone(pricingOf(c)) > lastDone(pricingOf(classified[critical]!)))
    )
      critical = i;
  });
  if (critical < 0) return undefined;
  const all = sent[critical]!;
  const sweep = classified[critical]!.sweep;
  const pricing = pricingOf(classified[critical]!);
  if (sweep.length === 0) return undefined;
  const firstCall = firstSent(all);
  const swept = lastDone(sweep);
  const firstPricing = firstSent(pricing);
  const lastPricing = lastDone(pricing);
  return {
    beforeCalls: firstCall - start,
    sweep: swept - firstCall,
    afterSweep: firstPricing - swept,
    pricing: lastPricing - firstPricing,
    afterCalls: end - lastPricing,
  };
};
