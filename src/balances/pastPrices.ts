import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { Warning } from "../contracts/Common.js";
import { firstLineOf } from "../lib/errorReason.js";
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

type ChainTokens = { readonly chain: ChainConfig; readonly tokens: ReadonlyArray<string> };

/** One chain's prices `offset` hours ago, or why there are none. */
const pricesHoursAgo = async (
  history: HistoricalPrices,
  { chain, tokens }: ChainTokens,
  offset: number,
  options: { readonly nowSeconds: number; readonly stateFrom: (chainId: number) => number | undefined },
): Promise<{ readonly prices: Awaited<ReturnType<HistoricalPrices["at"]>> } | { readonly why: string }> => {
  let block: Awaited<ReturnType<HistoricalPrices["blockHoursAgo"]>>;
  try {
    block = await history.blockHoursAgo(chain, options.nowSeconds, offset);
  } catch (error) {
    return { why: `finding the block of that time failed: ${firstLineOf(error)}` };
  }
  if (block === undefined) return { why: "the index holds no block that old" };
  if (typeof block !== "number") return { why: block.missing };
  const stateFrom = options.stateFrom(chain.chain_id);
  if (stateFrom !== undefined && block < stateFrom)
    return { why: `its RPC nodes keep state from block ${stateFrom} on, and that time is block ${block}` };
  try {
    return { prices: await history.at(chain, block, tokens) };
  } catch (error) {
    return { why: `reading state at block ${block} failed: ${firstLineOf(error)}` };
  }
};

/**
 * The prices `hours` ago of each chain's `tokens`, from state at the block of that time (from the
 * index, or found in the nodes' headers). Every (offset, chain) is read at once: each is a block
 * search and one multicall, and one after another they added up to seconds for a few offsets on a
 * few chains (each chain's RPC layer still bounds what it sends at once). An offset a chain cannot
 * give (a time before the chain's first block, headers or state the nodes no longer keep, a read
 * that failed) is a gap with its reason, never an error: the rest of the answer stands. Prices and
 * gaps come in request order, offsets first.
 */
export const readPastPrices = async (
  history: HistoricalPrices,
  tokensByChain: ReadonlyArray<ChainTokens>,
  hours: ReadonlyArray<number>,
  options: { readonly nowSeconds: number; readonly stateFrom: (chainId: number) => number | undefined },
): Promise<PastPrices> => {
  const asked = hours.flatMap((offset) => tokensByChain.map((entry) => ({ offset, entry })));
  const answers = await Promise.all(
    asked.map(({ offset, entry }) => pricesHoursAgo(history, entry, offset, options)),
  );
  const byToken = new Map<string, Array<{ offset_hours: number; price_usd: number }>>();
  const gaps: Array<PastPriceGap> = [];
  answers.forEach((answer, i) => {
    const { offset, entry } = asked[i]!;
    if ("why" in answer) {
      gaps.push({ chain: entry.chain, hours: offset, why: answer.why });
      return;
    }
    for (const [token, quote] of answer.prices) {
      if (quote === null) continue;
      const key = `${entry.chain.chain_id}|${token}`;
      const list = byToken.get(key) ?? [];
      list.push({ offset_hours: offset, price_usd: quote.priceUsd });
      byToken.set(key, list);
    }
  });
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
