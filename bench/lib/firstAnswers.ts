/** Every devnet chain, as `chain_ids` names them. */
export const DEVNET_CHAIN_IDS = "1,8453,10,57073";

/** One balances answer of a service: how long it took, whether it was complete, what it held. */
export interface BalancesAnswer {
  readonly ms: number;
  /** When it was back (performance.now()). */
  readonly at: number;
  /** It carried a DISCOVERY_IN_PROGRESS warning. */
  readonly inProgress: boolean;
  readonly warnings: ReadonlyArray<string>;
  readonly entries: number;
  /** The answer's per-chain errors (a chain it could not read in time), as sent. */
  readonly errors: string | undefined;
}

/** Asks `service` for the balances of `wallet` on every devnet chain, once. */
export const balancesAnswer = async (
  service: string,
  headers: Record<string, string>,
  wallet: string,
): Promise<BalancesAnswer> => {
  const start = performance.now();
  const res = await fetch(`${service}/v1/evm/balances/${wallet}?chain_ids=${DEVNET_CHAIN_IDS}`, { headers });
  const body = (await res.json()) as {
    balances?: ReadonlyArray<unknown>;
    warnings?: ReadonlyArray<{ code: string }>;
    errors?: unknown;
  };
  const at = performance.now();
  if (res.status !== 200)
    throw new Error(`balances of ${wallet}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  const warnings = (body.warnings ?? []).map((w) => w.code);
  return {
    ms: at - start,
    at,
    inProgress: warnings.includes("DISCOVERY_IN_PROGRESS"),
    warnings,
    entries: body.balances?.length ?? 0,
    errors: body.errors === undefined ? undefined : JSON.stringify(body.errors),
  };
};

/** How often an answer still in progress is asked again. */
const POLL_MS = 25;

/**
 * The wallet's first answer and, asking again every POLL_MS after an answer in progress or with a
 * chain's error, its first complete one (no DISCOVERY_IN_PROGRESS, no error): both timed from the
 * first request, with the errors met on the way. Gives up after `limitMs` and says so. `onFirst` is
 * called as soon as the first answer is back, before any poll.
 */
export const firstAndComplete = async (
  service: string,
  headers: Record<string, string>,
  wallet: string,
  limitMs: number,
  onFirst?: () => void,
) => {
  const start = performance.now();
  const first = await balancesAnswer(service, headers, wallet);
  onFirst?.();
  let last = first;
  let polls = 0;
  const errors: Array<string> = [];
  for (;;) {
    if (last.errors !== undefined) errors.push(last.errors);
    if (!last.inProgress && last.errors === undefined) break;
    if (performance.now() - start > limitMs)
      throw new Error(
        `${wallet} still incomplete ${limitMs / 1000} s after its first request: ${last.inProgress ? "discovery in progress" : ""} ${last.errors ?? ""}`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    last = await balancesAnswer(service, headers, wallet);
    polls++;
  }
  return { first, complete: last, completeMs: last.at - start, polls, errors };
};

/** Waits until the service's /healthz says ok: every chain is ready, so a request reads at the head. */
export const untilHealthy = async (service: string, limitMs = 120_000) => {
  const deadline = performance.now() + limitMs;
  for (;;) {
    try {
      const health = (await (await fetch(`${service}/healthz`)).json()) as { status?: string };
      if (health.status === "ok") return;
    } catch {
      // not answering yet
    }
    if (performance.now() > deadline) throw new Error(`${service}/healthz not ok after ${limitMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};
