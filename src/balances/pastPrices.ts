import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { Warning } from "../contracts/Common.js";
import type { HistoricalPrices } from "./historicalPrices.js";

/** A requested offset a chain could give no prices for, and why. */
export interface PastPriceGap {
  readonly chain: ChainConfig;
  readonly hours: number;
  readonly why: string;
}

export interface PastPrices {
  /** Prices by `chainId|token`, one per offset that could be read. */
  readonly byToken: ReadonlyMap<string, ReadonlyArray<{ offset_hours: number; price_usd: number }>>;
  readonly gaps: ReadonlyArray<PastPriceGap>;
}

const reasonOf = (error: unknown): string =>
  (error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error)).slice(0, 200);

/**
 * The prices `hours` ago of each chain's `tokens`, from state at the block of that time (from the
 * index, or found in the nodes' headers). An offset a chain cannot give (a time before the chain's
 * first block, headers or state the nodes no longer keep, a read that failed) is a gap with its
 * reason, never an error: the rest of the answer stands.
 */
export const readPastPrices = async (
  history: HistoricalPrices,
  tokensByChain: ReadonlyArray<{ readonly chain: ChainConfig; readonly tokens: ReadonlyArray<string> }>,
  hours: ReadonlyArray<number>,
  options: { readonly nowSeconds: number; readonly stateFrom: (chainId: number) => number | undefined },
): Promise<PastPrices> => {
  const byToken = new Map<string, Array<{ offset_hours: number; price_usd: number }>>();
  const gaps: Array<PastPriceGap> = [];
  for (const offset of hours) {
    for (const { chain, tokens } of tokensByChain) {
      let block: Awaited<ReturnType<HistoricalPrices["blockHoursAgo"]>>;
      try {
        block = await history.blockHoursAgo(chain, options.nowSeconds, offset);
      } catch (error) {
        gaps.push({ chain, hours: offset, why: `finding the block of that time failed: ${reasonOf(error)}` });
        continue;
      }
      if (block === undefined) {
        gaps.push({ chain, hours: offset, why: "the index holds no block that old" });
        continue;
      }
      if (typeof block !== "number") {
        gaps.push({ chain, hours: offset, why: block.missing });
        continue;
      }
      const stateFrom = options.stateFrom(chain.chain_id);
      if (stateFrom !== undefined && block < stateFrom) {
        gaps.push({
          chain,
          hours: offset,
          why: `its RPC nodes keep state from block ${stateFrom} on, and that time is block ${block}`,
        });
        continue;
      }
      let prices: Awaited<ReturnType<HistoricalPrices["at"]>>;
      try {
        prices = await history.at(chain, block, tokens);
      } catch (error) {
        gaps.push({
          chain,
          hours: offset,
          why: `reading state at block ${block} failed: ${reasonOf(error)}`,
        });
        continue;
      }
      for (const [token, quote] of prices) {
        if (quote === null) continue;
        const key = `${chain.chain_id}|${token}`;
        const list = byToken.get(key) ?? [];
        list.push({ offset_hours: offset, price_usd: quote.priceUsd });
        byToken.set(key, list);
      }
    }
  }
  return { byToken, gaps };
};

/** One warning per offset that some chains could not price, naming each chain and why. */
export const pastPriceWarnings = (gaps: ReadonlyArray<PastPriceGap>, publicUrl: string): Array<Warning> => {
  const byHours = new Map<number, Array<PastPriceGap>>();
  for (const gap of gaps) byHours.set(gap.hours, [...(byHours.get(gap.hours) ?? []), gap]);
  return [...byHours].map(([hours, list]) => ({
    code: "HISTORICAL_PRICES_UNAVAILABLE",
    message: `No prices ${hours} hours back on ${list.map((g) => `${g.chain.name} (${g.chain.chain_id}): ${g.why}`).join("; ")}. Those entries omit offset ${hours}.`,
    chain_ids: list.map((g) => g.chain.chain_id),
    docs_url: `${publicUrl}/v1/evm/supported-chains`,
  }));
};
