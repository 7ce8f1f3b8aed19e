import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import type { ProviderProxy } from "../../test/support/providerProxy.js";
import { describeLatency } from "./answerGaps.js";
import { PROVIDER_PLANS, planChanges } from "./providerPlans.js";
import { tallyOf } from "./proxyTally.js";
import { getAnswer, type ServiceAnswer } from "./serviceRequests.js";
import { median } from "./stats.js";

/**
 * Figure 1, whole answers: a service (cache off) whose chain 1 has one node behind `proxy`; for each
 * provider plan in turn (the proxy changed in place, so what the service learned of the previous
 * plan stays, as it would across a provider's changes), `count` sequential cold balances answers for
 * the whale (also with prices 24 and 720 hours ago) and positions answers for the V3 LP on chain 1. Reports each route's p50 against the
 * pass-through control's, the eth_calls and refusals per answer the proxy saw (the follower's head
 * polls are in the HTTP count, not in eth_calls), and any 5xx or chain error.
 */
export const serviceThroughStyles = async (
  service: { readonly url: string; readonly key: string },
  proxy: ProviderProxy,
  chain: ManifestChain,
  count: number,
): Promise<ReadonlyArray<string>> => {
  const routes = [
    { name: "balances (whale)", path: `/v1/evm/balances/${chain.wallets.whale}?chain_ids=1` },
    { name: "positions (v3_lp)", path: `/beta/evm/defi/positions/${chain.wallets.v3_lp}?chain_ids=1` },
    {
      name: "historical prices (whale)",
      path: `/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&historical_prices=24,720`,
    },
  ];
  const lines: Array<string> = [];
  const control = new Map<string, number>();
  // The first answers of a new process are slower (compilation): they would flatter every plan after the control.
  for (const route of routes)
    for (let i = 0; i < count; i++) await getAnswer(`${service.url}${route.path}`, service.key);
  for (const plan of PROVIDER_PLANS) {
    proxy.set(planChanges(plan));
    for (const route of routes) {
      proxy.resetStats();
      const answers: Array<ServiceAnswer> = [];
      for (let i = 0; i < count; i++)
        answers.push(await getAnswer(`${service.url}${route.path}`, service.key));
      const tally = tallyOf(proxy.stats());
      const p50 = median(answers.map((a) => a.ms));
      if (plan.style === "anvil") control.set(route.name, p50);
      const failed = answers.filter((a) => a.status >= 500).length;
      const withErrors = answers.filter((a) => a.failedChains.length > 0).length;
      lines.push(
        `${route.name}, ${plan.style}: ${describeLatency(answers.map((a) => a.ms))} (${(p50 / control.get(route.name)!).toFixed(2)}x the control's p50); ${(tally.ethCalls / count).toFixed(2)} eth_calls (${(tally.elements / count).toFixed(2)} calls of any kind) and ${(tally.refusals / count).toFixed(2)} refusals per answer${tally.refusals === 0 ? "" : ` (${tally.refusalKinds})`}; ${failed} 5xx, ${withErrors} with chain errors of ${count}`,
      );
    }
  }
  proxy.set(planChanges(PROVIDER_PLANS[0]!));
  return lines;
};
