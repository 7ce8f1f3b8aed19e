/** The steps of seeding one chain, in order. */
export const SEED_STEPS = [
  "starting node",
  "deploying protocols",
  "creating markets",
  "funding wallets",
  "opening liquidity positions",
  "opening lending positions",
  "opening vault and restaking positions",
  "opening yield-splitting positions",
  "opening every position type for one wallet",
  "mining history",
  "done",
] as const;

export type SeedStep = (typeof SEED_STEPS)[number];

/** One word per step for the live line, which holds every chain in 80 columns. */
const SHORT: Record<SeedStep, string> = {
  "starting node": "node",
  "deploying protocols": "protocols",
  "creating markets": "markets",
  "funding wallets": "wallets",
  "opening liquidity positions": "liquidity",
  "opening lending positions": "lending",
  "opening vault and restaking positions": "vaults",
  "opening yield-splitting positions": "pendle",
  "opening every position type for one wallet": "every type",
  "mining history": "history",
  done: "done",
};

/** Where progress goes: a log line per step, and on a terminal a line redrawn in place. */
export interface SeedProgressOptions {
  readonly chains: ReadonlyArray<string>;
  readonly log: (line: string) => void;
  /** A terminal to draw the live line on (stderr when it is a TTY); unset: log lines only. */
  readonly live?: { readonly write: (text: string) => unknown; readonly columns?: number } | undefined;
  readonly now?: () => number;
}

const seconds = (ms: number) => `${Math.round(ms / 1000)}s`;

/**
 * Progress of a devnet seed, per chain and step, the way package managers and
 * chain CLIs show theirs: in logs (no terminal) every step is a line
 * (`devnet base [3/8] creating markets (12s)`), so files and CI keep a record;
 * on a terminal one status line is redrawn in place with the step of each
 * chain, and is replaced by a summary line once every chain is done.
 */
export const makeSeedProgress = (options: SeedProgressOptions) => {
  const now = options.now ?? Date.now;
  const started = now();
  const where = new Map<string, SeedStep>(options.chains.map((chain) => [chain, "starting node"]));
  const total = SEED_STEPS.length;
  let drawn = false;

  const liveLine = () => {
    const parts = [...where].map(([chain, step]) => `${chain} ${SHORT[step]}`);
    const line = `devnet seed ${seconds(now() - started)}: ${parts.join(", ")}`;
    const width = Math.max(20, (options.live?.columns ?? 80) - 1);
    return line.length > width ? `${line.slice(0, width - 1)}…` : line;
  };
  const draw = () => {
    if (options.live === undefined) return;
    options.live.write(`\r\u001B[2K${liveLine()}`);
    drawn = true;
  };

  return {
    /** `chain` begins `step`. */
    step: (chain: string, step: SeedStep) => {
      where.set(chain, step);
      if (options.live !== undefined) return draw();
      options.log(
        `devnet ${chain} [${SEED_STEPS.indexOf(step) + 1}/${total}] ${step} (${seconds(now() - started)})`,
      );
    },
    /** Every chain is seeded: the live line is closed with the total time. */
    finish: () => {
      if (drawn) options.live?.write("\r\u001B[2K");
      options.log(`devnet seeded ${options.chains.length} chains in ${seconds(now() - started)}`);
    },
  };
};

export type SeedProgress = ReturnType<typeof makeSeedProgress>;
