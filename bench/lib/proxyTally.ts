import type { ProxyStats } from "../../test/support/providerProxy.js";

/** What a client sent through a provider proxy for one piece of work, and what it was refused. */
export interface ProxyTally {
  readonly httpRequests: number;
  readonly elements: number;
  readonly batchElements: number;
  readonly getLogs: number;
  readonly ethCalls: number;
  readonly refusals: number;
  /** Refusals by kind, only the kinds met ("range 1, rate 12"). */
  readonly refusalKinds: string;
}

export const tallyOf = (stats: ProxyStats): ProxyTally => {
  const met = Object.entries(stats.refusals).filter(([, n]) => n > 0);
  return {
    httpRequests: stats.httpRequests,
    elements: stats.elements,
    batchElements: stats.batchElements,
    getLogs: stats.methods.eth_getLogs ?? 0,
    ethCalls: stats.methods.eth_call ?? 0,
    refusals: met.reduce((sum, [, n]) => sum + n, 0),
    refusalKinds: met.map(([kind, n]) => `${kind} ${n}`).join(", "),
  };
};

/** "12 HTTP (9 batches' 350 elements), refused: range 1" */
export const describeTally = (tally: ProxyTally): string =>
  `${tally.httpRequests} HTTP, ${tally.elements} elements (${tally.batchElements} in batches), ${
    tally.refusals === 0 ? "no refusal" : `refused ${tally.refusals} (${tally.refusalKinds})`
  }`;
