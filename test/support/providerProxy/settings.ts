/** The proxy's options, each style's defaults, and the settings one request is judged by. */

export type ProviderStyle = "anvil" | "reth" | "geth" | "erigon" | "infura" | "alchemy" | "quicknode";

export interface ProviderProxyOptions {
  /** Upstream anvil URL (http). */
  readonly target: string;
  /** Decides the default caps and the exact error texts, codes and HTTP shapes. */
  readonly style: ProviderStyle;
  /**
   * eth_getLogs block-range cap as the node states it (`Infinity`: none); undefined = the style's default.
   * Nodes count it the way their own code does: reth, geth and QuickNode refuse when `to - from` exceeds
   * it (so reth's 100000 takes 100,001 blocks), Alchemy when the inclusive block count does.
   */
  readonly maxLogsRange?: number;
  /** eth_getLogs result cap (`Infinity`: none); undefined = the style's default. */
  readonly maxLogsResults?: number;
  /** JSON-RPC batch element cap (`Infinity`: none); undefined = the style's default. */
  readonly maxBatch?: number;
  /**
   * Most alternatives an eth_getLogs filter may name in its address or in one topic position
   * (`Infinity`: none); undefined = the style's default.
   */
  readonly maxFilterWidth?: number;
  /** Token bucket in real time; each batch element takes a token. `burst` defaults to `rps`. */
  readonly rateLimit?: { readonly rps: number; readonly burst?: number };
  /** debug_* and trace_* answer "method not found" in the style's words. */
  readonly noDebug?: boolean;
  /** eth_getBlockReceipts answers "method not found" in the style's words. */
  readonly noBlockReceipts?: boolean;
  /**
   * Logs, receipts and state are kept for the head and the N blocks below it only; older ones answer
   * the style's pruned-history error. Headers (eth_getBlockByNumber) still answer.
   */
  readonly prunedWindow?: number;
  /**
   * With `prunedWindow`: eth_getLogs skips the pruned blocks of a range instead of refusing it, and
   * answers `[]` for a range below the window, as reth's range loop does for blocks whose receipts
   * are missing (`None => continue`; reth #16354, #17678). Receipts and state still refuse.
   */
  readonly silentPrunedLogs?: boolean;
  /**
   * State (eth_call, balances, and the state debug_traceBlockByHash re-executes a block from) is kept
   * for the head and the N blocks below it only, whatever `prunedWindow` keeps of receipts and logs:
   * geth's full node keeps 128 blocks of state and every receipt. Older ones answer the style's
   * pruned-state error. Undefined: as `prunedWindow`.
   */
  readonly stateWindow?: number;
  /** Pretend to be N blocks behind upstream: eth_blockNumber = head - N, newer blocks are unknown. */
  readonly headLag?: number;
}

/**
 * Changes for `set`: a key given as undefined drops the override, so the style's default (or nothing)
 * applies again.
 */
export type ProxyChanges = {
  readonly [K in Exclude<keyof ProviderProxyOptions, "target">]?: ProviderProxyOptions[K] | undefined;
};

/** Everything one request is judged by, fixed when it arrives so `set` never changes it midway. */
export interface Settings {
  readonly style: ProviderStyle;
  readonly maxLogsRange: number | undefined;
  readonly maxLogsResults: number | undefined;
  readonly maxBatch: number | undefined;
  readonly maxFilterWidth: number | undefined;
  readonly rateLimit: { readonly rps: number; readonly burst: number } | undefined;
  readonly noDebug: boolean;
  readonly noBlockReceipts: boolean;
  readonly prunedWindow: number | undefined;
  readonly silentPrunedLogs: boolean;
  readonly stateWindow: number | undefined;
  readonly headLag: number;
}

interface StyleDefaults {
  readonly maxLogsRange?: number;
  readonly maxLogsResults?: number;
  readonly maxBatch?: number;
  readonly maxFilterWidth?: number;
}

/**
 * reth: `--rpc.max-blocks-per-filter` 100,000 and `--rpc.max-logs-per-response` 20,000
 * (crates/node/core/src/args/rpc_server.rs). geth: `--rpc.batch-request-limit` 1,000, no logs caps
 * (`--rpc.rangelimit` 0), 1,000 alternatives per filter position (`--rpc.logquerylimit`). Erigon: `--rpc.batch.limit` 100. Infura and Alchemy: 10,000 logs per response.
 * QuickNode: 10,000-block range on paid plans.
 */
const STYLE_DEFAULTS: Readonly<Record<ProviderStyle, StyleDefaults>> = {
  anvil: {},
  reth: { maxLogsRange: 100_000, maxLogsResults: 20_000 },
  geth: { maxBatch: 1_000, maxFilterWidth: 1_000 },
  erigon: { maxBatch: 100 },
  infura: { maxLogsResults: 10_000 },
  alchemy: { maxLogsResults: 10_000 },
  quicknode: { maxLogsRange: 10_000 },
};

/**
 * Caps a style has no known wording for: refusing them in invented words would test the client against
 * a node that does not exist, so such options are rejected instead.
 */
const UNWORDED: Readonly<Record<ProviderStyle, ReadonlyArray<keyof StyleDefaults>>> = {
  anvil: ["maxLogsResults", "maxFilterWidth"],
  reth: ["maxFilterWidth"],
  geth: ["maxLogsResults"],
  erigon: ["maxLogsResults", "maxFilterWidth"],
  infura: ["maxBatch", "maxFilterWidth"],
  alchemy: ["maxBatch"],
  quicknode: ["maxLogsResults", "maxBatch", "maxFilterWidth"],
};

const finiteOrNone = (value: number | undefined): number | undefined =>
  value === undefined || value === Number.POSITIVE_INFINITY ? undefined : value;

export const resolveSettings = (options: Omit<ProviderProxyOptions, "target">): Settings => {
  const defaults = STYLE_DEFAULTS[options.style];
  for (const key of UNWORDED[options.style]) {
    const value = options[key];
    if (value !== undefined && value !== Number.POSITIVE_INFINITY) {
      throw new Error(`providerProxy: ${options.style} has no known refusal text for ${key}`);
    }
  }
  const rate = options.rateLimit;
  return {
    style: options.style,
    maxLogsRange: finiteOrNone(options.maxLogsRange ?? defaults.maxLogsRange),
    maxLogsResults: finiteOrNone(options.maxLogsResults ?? defaults.maxLogsResults),
    maxBatch: finiteOrNone(options.maxBatch ?? defaults.maxBatch),
    maxFilterWidth: finiteOrNone(options.maxFilterWidth ?? defaults.maxFilterWidth),
    rateLimit: rate === undefined ? undefined : { rps: rate.rps, burst: rate.burst ?? rate.rps },
    noDebug: options.noDebug ?? false,
    noBlockReceipts: options.noBlockReceipts ?? false,
    prunedWindow: options.prunedWindow,
    silentPrunedLogs: options.silentPrunedLogs ?? false,
    stateWindow: options.stateWindow,
    headLag: options.headLag ?? 0,
  };
};

/** Applies `changes` to `current`; an undefined value removes that key (the style stays). */
export const applyChanges = (
  current: Omit<ProviderProxyOptions, "target">,
  changes: ProxyChanges,
): Omit<ProviderProxyOptions, "target"> => {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    // A proxy always speaks as some style: only the caps and switches can be dropped.
    if (value === undefined && key !== "style") delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as unknown as Omit<ProviderProxyOptions, "target">;
};
