import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import type { ProviderProxy } from "../../test/support/providerProxy.js";
import { describeLatency } from "./answerGaps.js";
import { READ_BUDGET_MS } from "./balancesLoad.js";
import { closedLoop } from "./closedLoop.js";
import { openLoop } from "./openLoop.js";
import { getAnswer, type ServiceAnswer } from "./serviceRequests.js";

const FROZEN_CHAIN = 1;
/** Clients asking only for chains that keep their nodes, in a closed loop. */
const OTHER_CLIENTS = 4;
/** How often a request including chain 1 arrives. */
const FROZEN_EVERY_MS = 250;
const HEALTH_EVERY_MS = 250;

type Group = "others" | "frozen";
type Phase = "before" | "during" | "after";

interface Tagged {
  readonly group: Group;
  readonly answer: ServiceAnswer;
  readonly startedAt: number;
}

interface HealthPoll {
  readonly at: number;
  readonly status: number;
  readonly state: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/** "200 ok x12, 200 degraded x40": how many polls got each answer. */
const countStates = (polls: ReadonlyArray<HealthPoll>): string => {
  const counts = new Map<string, number>();
  for (const poll of polls)
    counts.set(`${poll.status} ${poll.state}`, (counts.get(`${poll.status} ${poll.state}`) ?? 0) + 1);
  return [...counts].map(([state, n]) => `${state} x${n}`).join(", ");
};

/** "7.0 s after" or "never" */
const firstAfter = (times: ReadonlyArray<number>, from: number): string => {
  const first = times.filter((t) => t >= from).sort((a, b) => a - b)[0];
  return first === undefined ? "never" : `${((first - from) / 1000).toFixed(1)} s after`;
};

/**
 * Figure 4: mixed cold load on the whole service (4 clients asking for chains 8453, 10 and 57073
 * only, in a closed loop, and a request including chain 1 every 250 ms, balances and positions
 * alike), while chain 1's only node,
 * behind `proxy`, answers, then hangs (`freeze`: connections accepted, nothing answered) for
 * `seconds.frozen`, then answers again (`thaw`). /healthz is polled every 250 ms throughout.
 * Reports each group's latency before, during and after, the chain errors and 5xx they met, and
 * what /healthz said.
 */
export const frozenChain = async (
  service: { readonly url: string; readonly key: string },
  proxy: ProviderProxy,
  chain: ManifestChain,
  seconds: { readonly before: number; readonly frozen: number; readonly after: number },
): Promise<ReadonlyArray<string>> => {
  const { whale, v3_lp: lp, lending_all: lender } = chain.wallets;
  const paths: Record<Group, ReadonlyArray<string>> = {
    others: [
      `/v1/evm/balances/${whale}?chain_ids=8453,10`,
      `/beta/evm/defi/positions/${lp}?chain_ids=8453,10`,
      `/v1/evm/balances/${lender}?chain_ids=10,57073`,
    ],
    frozen: [`/v1/evm/balances/${whale}?chain_ids=1,8453`, `/beta/evm/defi/positions/${lp}?chain_ids=1,10`],
  };
  const startedAt = performance.now();
  const frozenAt = startedAt + seconds.before * 1000;
  const thawedAt = frozenAt + seconds.frozen * 1000;
  const endAt = thawedAt + seconds.after * 1000;
  const phaseOf = (at: number): Phase => (at < frozenAt ? "before" : at < thawedAt ? "during" : "after");

  const polls: Array<HealthPoll> = [];
  const polling = (async () => {
    while (performance.now() < endAt) {
      const at = performance.now();
      try {
        const response = await fetch(`${service.url}/healthz`);
        const body = (await response.json()) as { status?: string };
        polls.push({ at, status: response.status, state: body.status ?? "?" });
      } catch {
        polls.push({ at, status: 0, state: "no answer" });
      }
      await sleep(HEALTH_EVERY_MS - (performance.now() - at));
    }
  })();
  const ask = async (group: Group, turn: number): Promise<Tagged> => {
    const at = performance.now();
    const path = paths[group][turn % paths[group].length]!;
    return { group, answer: await getAnswer(`${service.url}${path}`, service.key), startedAt: at };
  };
  const turns = new Map<number, number>();
  const others = closedLoop(
    (worker) => {
      const turn = turns.get(worker) ?? 0;
      turns.set(worker, turn + 1);
      return ask("others", worker + turn);
    },
    { concurrency: OTHER_CLIENTS, untilMs: endAt },
  );
  // Requests that include chain 1 arrive at a steady rate, each from a client of its own: a hung
  // answer holds up no one else's request, and every request meets the hang.
  let arrivals = 0;
  const frozen = openLoop(() => ask("frozen", arrivals++), { everyMs: FROZEN_EVERY_MS, untilMs: endAt });
  await sleep(frozenAt - performance.now());
  proxy.freeze();
  await sleep(thawedAt - performance.now());
  proxy.thaw();
  const samples = [...(await others), ...(await frozen)];
  await polling;

  const failedToConnect = samples.filter((s) => !s.ok).length;
  const answers = samples.flatMap((s) => (s.value === undefined ? [] : [s.value]));
  const of = (group: Group, phase: Phase) =>
    answers.filter((a) => a.group === group && phaseOf(a.startedAt) === phase);
  const describeGroup = (group: Group, phase: Phase) => {
    const list = of(group, phase);
    const server = list.filter((a) => a.answer.status >= 500).length;
    const missing = list.filter((a) => a.answer.failedChains.includes(FROZEN_CHAIN)).length;
    const otherMissing = list.filter((a) => a.answer.failedChains.some((id) => id !== FROZEN_CHAIN)).length;
    return `${list.length} answers, ${describeLatency(list.map((a) => a.answer.ms))}, ${server} 5xx, ${missing} without chain 1${otherMissing === 0 ? "" : `, ${otherMissing} without another chain`}`;
  };
  const pollsIn = (phase: Phase) => polls.filter((p) => phaseOf(p.at) === phase);
  const frozenAnswered = of("frozen", "during").filter((a) => a.answer.failedChains.includes(FROZEN_CHAIN));
  // Recovery: the first request begun after the thaw that answered with chain 1 in it.
  const recovered = of("frozen", "after")
    .filter((a) => a.answer.status === 200 && !a.answer.failedChains.includes(FROZEN_CHAIN))
    .map((a) => a.startedAt + a.answer.ms);
  return [
    `chain 1's only node hung for ${seconds.frozen} s after ${seconds.before} s of ${OTHER_CLIENTS} clients on the other chains and a request on chain 1 with another every ${FROZEN_EVERY_MS} ms (cold reads: cache off); request budget per chain ${READ_BUDGET_MS / 1000} s, gateway timeout 10 s`,
    `  other chains, before: ${describeGroup("others", "before")}`,
    `  other chains, during: ${describeGroup("others", "during")}`,
    `  other chains, after: ${describeGroup("others", "after")}`,
    `  with chain 1, before: ${describeGroup("frozen", "before")}`,
    `  with chain 1, during: ${describeGroup("frozen", "during")}; the longest answer ${(Math.max(0, ...frozenAnswered.map((a) => a.answer.ms)) / 1000).toFixed(1)} s`,
    `  with chain 1, after the thaw: ${describeGroup("frozen", "after")}; chain 1 answered again ${firstAfter(recovered, thawedAt)} the thaw`,
    `  /healthz before: ${countStates(pollsIn("before"))}; during: ${countStates(pollsIn("during"))} (degraded ${firstAfter(
      pollsIn("during")
        .filter((p) => p.state === "degraded")
        .map((p) => p.at),
      frozenAt,
    )} the hang); after: ${countStates(pollsIn("after"))} (ok ${firstAfter(
      pollsIn("after")
        .filter((p) => p.state === "ok")
        .map((p) => p.at),
      thawedAt,
    )} the thaw)${failedToConnect === 0 ? "" : `; ${failedToConnect} requests got no HTTP answer at all`}`,
  ];
};
