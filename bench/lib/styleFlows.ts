import type { RawCall } from "../../src/chains/multicall3.js";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { startProviderProxy } from "../../test/support/providerProxy.js";
import { balancesLoad } from "./balancesLoad.js";
import { benchChainRpc } from "./benchChainRpc.js";
import { type HistoryRead, readHistoryAsIngest, sameHistory } from "./historyRead.js";
import { learnedState } from "./learnedState.js";
import { PROVIDER_PLANS, type ProviderPlan } from "./providerPlans.js";
import { describeTally, type ProxyTally, tallyOf } from "./proxyTally.js";
import { median, spread } from "./stats.js";

/** How one run of a flow went: its wall time, and whether it gave the direct answer. */
interface FlowOutcome {
  readonly ms: number;
  readonly ok: boolean;
  readonly note: string;
  /** False when it was given up at its time limit. */
  readonly finished: boolean;
}

/** One of the service's main flows against one chain, run whole through a ChainRpc. */
interface Flow {
  readonly name: string;
  readonly run: (rpc: ChainRpc) => Promise<FlowOutcome>;
}

/** A flow run twice on one ChainRpc (first meeting the node, then with what it learned), and its direct floor. */
interface StyleRound {
  readonly first: FlowOutcome;
  readonly again: FlowOutcome;
  readonly firstTally: ProxyTally;
  readonly againTally: ProxyTally;
  readonly directFirstMs: number;
  readonly directAgainMs: number;
  readonly learned: string;
}

export interface FlowSetup {
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly head: number;
  readonly calls: ReadonlyArray<RawCall>;
  /** Balances-style reads per run, and how many at once. */
  readonly reads: number;
  readonly concurrency: number;
  /** A run not done by then is given up (and its plan not run again in later repetitions). */
  readonly limitMs: number;
}

const historyFlow = (setup: FlowSetup, reference: HistoryRead): Flow => ({
  name: "history",
  run: async (rpc) => {
    const read = await readHistoryAsIngest(rpc, 0, setup.head, setup.limitMs);
    const failed =
      read.failedSteps === 0 ? "" : `; ${read.failedSteps} failed steps, the last: ${read.lastError}`;
    return {
      ms: read.ms,
      ok: sameHistory(read, reference),
      finished: read.finished,
      note: read.finished
        ? `${sameHistory(read, reference) ? "same blocks and logs as direct" : "NOT the direct read's blocks and logs"}${failed}`
        : `given up after ${setup.limitMs / 1000} s with ${read.blocks} of ${setup.head + 1} blocks${failed}`,
    };
  },
});

const balancesFlow = (setup: FlowSetup, reference: string): Flow => ({
  name: "balances",
  run: async (rpc) => {
    const load = await balancesLoad(rpc, setup.calls, setup.head, {
      reads: setup.reads,
      concurrency: setup.concurrency,
    });
    const wrong = load.samples.filter((s) => s.ok && s.value !== reference).length;
    return {
      ms: load.ms,
      ok: load.failed === 0 && wrong === 0,
      finished: true,
      note:
        load.failed === 0 && wrong === 0
          ? "every read as direct"
          : `${load.failed} of ${setup.reads} reads failed (${load.firstError}), ${wrong} answered otherwise`,
    };
  },
});

/** One plan's flow: a fresh proxy and ChainRpc, the flow twice, each right after the same run direct. */
const runRound = async (setup: FlowSetup, flow: Flow, plan: ProviderPlan): Promise<StyleRound> => {
  const direct = await benchChainRpc(setup.rpcUrl, { chainId: setup.chainId });
  const proxy = await startProviderProxy({ target: setup.rpcUrl, style: plan.style, ...plan.caps });
  const through = await benchChainRpc(proxy.url, { chainId: setup.chainId });
  try {
    const directFirst = await flow.run(direct.rpc);
    const first = await flow.run(through.rpc);
    const firstTally = tallyOf(proxy.stats());
    proxy.resetStats();
    const directAgain = await flow.run(direct.rpc);
    const again = await flow.run(through.rpc);
    return {
      first,
      again,
      firstTally,
      againTally: tallyOf(proxy.stats()),
      directFirstMs: directFirst.ms,
      directAgainMs: directAgain.ms,
      learned: learnedState(through.rpc),
    };
  } finally {
    await through.close();
    await proxy.stop();
    await direct.close();
  }
};

/** Median of each count over the repetitions; the refusal kinds of the repetition nearest the median. */
const medianTally = (tallies: ReadonlyArray<ProxyTally>): ProxyTally => {
  const refusals = median(tallies.map((t) => t.refusals));
  const nearest = tallies.reduce((a, b) =>
    Math.abs(b.refusals - refusals) < Math.abs(a.refusals - refusals) ? b : a,
  );
  return {
    httpRequests: median(tallies.map((t) => t.httpRequests)),
    elements: median(tallies.map((t) => t.elements)),
    batchElements: median(tallies.map((t) => t.batchElements)),
    getLogs: median(tallies.map((t) => t.getLogs)),
    ethCalls: median(tallies.map((t) => t.ethCalls)),
    refusals,
    refusalKinds: nearest.refusalKinds,
  };
};

/** The least time a rate limit allows for `elements`, past its burst, in ms. */
const rateFloorMs = (plan: ProviderPlan, elements: number): number | undefined => {
  const rate = plan.caps.rateLimit;
  if (rate === undefined) return undefined;
  return (Math.max(0, elements - (rate.burst ?? rate.rps)) / rate.rps) * 1000;
};

const describeRun = (
  label: string,
  plan: ProviderPlan,
  runs: ReadonlyArray<{ outcome: FlowOutcome; tally: ProxyTally; directMs: number }>,
  control: ProxyTally,
): string => {
  const tally = medianTally(runs.map((r) => r.tally));
  const ratios = runs.map((r) => r.outcome.ms / r.directMs);
  const floor = rateFloorMs(plan, control.elements);
  const overFloor =
    floor === undefined || floor === 0
      ? ""
      : `, ${(median(runs.map((r) => r.outcome.ms)) / floor).toFixed(2)}x its rate floor (${(floor / 1000).toFixed(1)} s)`;
  const calls =
    control.httpRequests === 0
      ? ""
      : ` (${(tally.httpRequests / control.httpRequests).toFixed(2)}x the control's HTTP)`;
  const unfinished = runs.filter((r) => !r.outcome.finished);
  // A repetition that did not recover says more than those that did.
  const note = (unfinished[0] ?? runs.find((r) => !r.outcome.ok) ?? runs[0]!).outcome.note;
  return `${label} ${unfinished.length > 0 ? ">= " : ""}${spread(ratios)}x direct${overFloor}; ${describeTally(tally)}${calls}; ${note}`;
};

/**
 * Figure 1: the history read and the balances-style read through every provider plan against the
 * same reads direct, in `repetitions` rounds; calls and refusals as the proxy saw them. A plan whose
 * flow was given up is not run again in later rounds (its figure is the first round's).
 */
export const styleFlows = async (setup: FlowSetup, repetitions: number): Promise<ReadonlyArray<string>> => {
  const reference = await benchChainRpc(setup.rpcUrl, { chainId: setup.chainId });
  const history = await readHistoryAsIngest(reference.rpc, 0, setup.head, setup.limitMs);
  const balances = await balancesLoad(reference.rpc, setup.calls, setup.head, {
    reads: 1,
    concurrency: 1,
  });
  await reference.close();
  const flows = [historyFlow(setup, history), balancesFlow(setup, balances.samples[0]?.value ?? "")];
  const lines: Array<string> = [
    `direct: history of blocks 0-${setup.head} in ingest's steps ${history.ms.toFixed(0)} ms (${history.blocks} blocks, ${history.logs} logs); balances ${setup.reads} reads of ${setup.calls.length} balanceOf in one aggregate3, ${setup.concurrency} at a time, ${balances.ms.toFixed(0)} ms for one`,
  ];
  for (const flow of flows) {
    const rounds = new Map<ProviderPlan, Array<StyleRound>>();
    for (let rep = 0; rep < repetitions; rep++) {
      for (const plan of PROVIDER_PLANS) {
        const done = rounds.get(plan) ?? [];
        if (done.some((r) => !r.first.finished || !r.again.finished)) continue;
        done.push(await runRound(setup, flow, plan));
        rounds.set(plan, done);
      }
    }
    const control = rounds.get(PROVIDER_PLANS[0]!)!;
    for (const plan of PROVIDER_PLANS) {
      const runs = rounds.get(plan)!;
      lines.push(
        `${flow.name}, ${plan.style} (${plan.meets}):`,
        `  ${describeRun(
          "first:",
          plan,
          runs.map((r) => ({ outcome: r.first, tally: r.firstTally, directMs: r.directFirstMs })),
          medianTally(control.map((r) => r.firstTally)),
        )}`,
        `  ${describeRun(
          "again:",
          plan,
          runs.map((r) => ({ outcome: r.again, tally: r.againTally, directMs: r.directAgainMs })),
          medianTally(control.map((r) => r.againTally)),
        )}; then ${runs.at(-1)!.learned}`,
      );
    }
  }
  return lines;
};
