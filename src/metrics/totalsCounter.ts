import { Counter, type Registry } from "prom-client";

/** A running total kept elsewhere, read at scrape time: the series it belongs to and its value now. */
export interface RunningTotal<L extends string> {
  readonly labels: Readonly<Record<L, string>>;
  readonly value: number;
  /** The object that keeps the total: another one in the same series counts from zero again. */
  readonly keeper: object;
}

/**
 * A counter over totals some other object keeps (an RPC endpoint's requests, its refusals):
 * prom-client counters only `inc`, so each scrape adds what each total grew by since the previous
 * scrape. Resetting the counter and adding the whole total would also print the right number, but
 * the series would then go down whenever its source did; here a total whose keeper was replaced
 * (a chain's RPC access opened again, counting from zero) is added whole, as is a total that
 * dropped, and the series never decreases, which is what `rate()` and `increase()` rely on.
 */
export const totalsCounter = <L extends string>(options: {
  readonly name: string;
  readonly help: string;
  readonly labelNames: ReadonlyArray<L>;
  readonly registry: Registry;
  readonly read: () => Iterable<RunningTotal<L>>;
}): Counter<L> => {
  const { labelNames, read } = options;
  const previous = new Map<string, { readonly keeper: object; readonly value: number }>();
  return new Counter({
    name: options.name,
    help: options.help,
    labelNames,
    registers: [options.registry],
    collect() {
      for (const { labels, value, keeper } of read()) {
        const series = JSON.stringify(labelNames.map((name) => labels[name]));
        const before = previous.get(series);
        previous.set(series, { keeper, value });
        const counted = before?.keeper === keeper && value >= before.value ? before.value : 0;
        // inc by 0 still creates the series: it is scraped from its first appearance at 0.
        this.inc(labels, value - counted);
      }
    },
  });
};
