import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { isAbsolute, resolve } from "node:path";
import { BundledTokenListName, type ChainConfig } from "../chains/ChainsConfig.js";

/**
 * Token lists (docs/token-lists.md): the public lists shipped as npm packages, and lists an operator
 * names per chain in `token_lists`. They feed a chain's token universe (tokenUniverse.ts), which is
 * swept with `balanceOf`; the metadata they carry spares metadata reads.
 */

/** One token of a list for one chain. */
export interface ListedToken {
  /** 0x + 40 hex, lower case. */
  readonly address: string;
  readonly symbol?: string;
  readonly name?: string;
  /** 0..36; left out where lists that carry the token disagree. */
  readonly decimals?: number;
  /** The list it came from: a bundled list's name, or an operator list as configured (URL query hidden). */
  readonly source: string;
}

export const BUNDLED_TOKEN_LISTS: ReadonlyArray<BundledTokenListName> = BundledTokenListName.literals;

/** Defaults of makeTokenLists. */
export const TOKEN_LIST_DEFAULTS = {
  /** A fetched list is fetched again after this long. */
  refreshIntervalMs: 6 * 3600_000,
  /** A URL whose fetch failed is tried again after this long (its last good copy stays in use). */
  retryIntervalMs: 15 * 60_000,
  /** One fetch, headers and body, must finish within this. */
  fetchTimeoutMs: 15_000,
  /** A list file or response body larger than this is refused. */
  maxListBytes: 16 * 1024 * 1024,
  /** Most tokens a chain takes from its operator lists together (in the order they are named). */
  maxOperatorTokens: 20_000,
} as const;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** Stand-ins for the native asset in some lists: not tokens. */
const NOT_TOKENS = new Set([
  "0x0000000000000000000000000000000000000000",
  "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
]);

const text = (value: unknown, max: number): string | undefined => {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (trimmed === "" || trimmed.length > max) return undefined;
  // Control characters in a symbol or name are a list's attack on a terminal or a log, not a name.
  for (let i = 0; i < trimmed.length; i++) {
    const code = trimmed.charCodeAt(i);
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) return undefined;
  }
  return trimmed;
};

/**
 * A list entry as a ListedToken, or undefined when it is malformed: an address that is not 0x + 40
 * hex (or stands for the native asset), or `decimals` given but not an integer from 0 to 36. A
 * symbol or name that is not a short printable string is left out, the token kept.
 */
type ListMeta = { readonly symbol?: unknown; readonly name?: unknown; readonly decimals?: unknown };

/** The entry's address in lower case, or undefined when the entry is malformed (toListedToken). */
const listedAddress = (address: unknown, meta: ListMeta): string | undefined => {
  if (typeof address !== "string" || !ADDRESS.test(address)) return undefined;
  const lower = address.toLowerCase();
  if (NOT_TOKENS.has(lower)) return undefined;
  const { decimals } = meta;
  if (
    decimals !== undefined &&
    decimals !== null &&
    !(typeof decimals === "number" && Number.isInteger(decimals) && decimals >= 0 && decimals <= 36)
  )
    return undefined;
  return lower;
};

export const toListedToken = (address: unknown, meta: ListMeta, source: string): ListedToken | undefined => {
  const lower = listedAddress(address, meta);
  if (lower === undefined) return undefined;
  const { decimals } = meta;
  const symbol = text(meta.symbol, 64);
  const name = text(meta.name, 128);
  return {
    address: lower,
    ...(symbol === undefined ? {} : { symbol }),
    ...(name === undefined ? {} : { name }),
    ...(typeof decimals === "number" ? { decimals } : {}),
    source,
  };
};

const isChainId = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value > 0;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Tokens of several lists as one, one entry an address: the first list naming an address gives the
 * entry, later ones fill in a missing symbol or name; decimals on which two lists disagree are left
 * out, so that they are read from the chain.
 */
export const mergeListedTokens = (groups: Iterable<ReadonlyArray<ListedToken>>): Array<ListedToken> => {
  const byAddress = new Map<string, ListedToken>();
  const disputed = new Set<string>();
  for (const group of groups) {
    for (const token of group) {
      const known = byAddress.get(token.address);
      if (known === undefined) {
        byAddress.set(token.address, token);
        continue;
      }
      if (token.decimals !== undefined && known.decimals !== undefined && token.decimals !== known.decimals)
        disputed.add(token.address);
      if (
        (known.symbol === undefined && token.symbol !== undefined) ||
        (known.name === undefined && token.name !== undefined) ||
        (known.decimals === undefined && token.decimals !== undefined)
      )
        byAddress.set(token.address, {
          ...token,
          ...known,
          ...(known.symbol === undefined && token.symbol !== undefined ? { symbol: token.symbol } : {}),
          ...(known.name === undefined && token.name !== undefined ? { name: token.name } : {}),
          ...(known.decimals === undefined && token.decimals !== undefined
            ? { decimals: token.decimals }
            : {}),
        });
    }
  }
  return [...byAddress.values()].map((token) => {
    if (!disputed.has(token.address)) return token;
    const { decimals: _, ...rest } = token;
    return rest;
  });
};

// ---------------------------------------------------------------------------------------------
// Bundled lists

/** What a bundled list held, by chain id, after validation. */
interface BundledList {
  readonly byChain: ReadonlyMap<number, ReadonlyArray<ListedToken>>;
  /** Entries dropped as malformed (for Uniswap's list: its Solana tokens, whose addresses are base58). */
  readonly malformed: number;
}

const requirePackage = createRequire(import.meta.url);

/** Each bundled list's entries as `{ chainId, address, symbol, name, decimals }` objects. */
const bundledEntries: Record<BundledTokenListName, () => ReadonlyArray<unknown>> = {
  uniswap: () => (requirePackage("@uniswap/default-token-list") as { tokens: ReadonlyArray<unknown> }).tokens,
  superchain: () => {
    // The CommonJS build exports `{ default: <module namespace> }`, whose `default` is the list.
    const mod = requirePackage("@eth-optimism/tokenlist") as Record<string, unknown>;
    for (const candidate of [
      mod,
      mod.default,
      (mod.default as Record<string, unknown> | undefined)?.default,
    ]) {
      if (isRecord(candidate) && Array.isArray(candidate.tokens)) return candidate.tokens;
    }
    throw new Error("@eth-optimism/tokenlist exports no `tokens`");
  },
  // Mainnet only: checksummed address to metadata; ERC-721 entries are not fungible tokens.
  metamask: () =>
    Object.entries(requirePackage("@metamask/contract-metadata") as Record<string, Record<string, unknown>>)
      .filter(([, meta]) => isRecord(meta) && meta.erc20 === true)
      .map(([address, meta]) => ({ ...meta, chainId: 1, address })),
};

const indexList = (entries: ReadonlyArray<unknown>, source: string): BundledList => {
  const groups = new Map<number, Array<ListedToken>>();
  let malformed = 0;
  for (const entry of entries) {
    const chainId = isRecord(entry) && isChainId(entry.chainId) ? entry.chainId : undefined;
    const token =
      chainId === undefined
        ? undefined
        : toListedToken((entry as { address?: unknown }).address, entry as object, source);
    if (chainId === undefined || token === undefined) {
      malformed++;
      continue;
    }
    const group = groups.get(chainId) ?? [];
    group.push(token);
    groups.set(chainId, group);
  }
  const byChain = new Map<number, ReadonlyArray<ListedToken>>();
  for (const [chainId, tokens] of groups) byChain.set(chainId, mergeListedTokens([tokens]));
  return { byChain, malformed };
};

const bundledCache = new Map<BundledTokenListName, BundledList>();

/** A bundled list, read and validated on first use and kept; a list that cannot be read counts as empty. */
const bundledList = (name: BundledTokenListName): BundledList => {
  const cached = bundledCache.get(name);
  if (cached !== undefined) return cached;
  let list: BundledList;
  try {
    list = indexList(bundledEntries[name](), name);
  } catch (cause) {
    // A packaging fault (a list package changed its shape): the universe goes on without it.
    console.warn(`token lists: bundled list ${name} cannot be read: ${String(cause)}`);
    list = { byChain: new Map(), malformed: 0 };
  }
  bundledCache.set(name, list);
  return list;
};

/** How many valid tokens, and malformed entries, a bundled list has (all chain ids). */
export const bundledListSummary = (
  name: BundledTokenListName,
): { readonly byChain: ReadonlyMap<number, number>; readonly malformed: number } => {
  const list = bundledList(name);
  return {
    byChain: new Map([...list.byChain].map(([chainId, tokens]) => [chainId, tokens.length])),
    malformed: list.malformed,
  };
};

/** The bundled lists' tokens for a chain id, one entry an address (lists in the order given). */
export const listedTokens = (
  chainId: number,
  lists: ReadonlyArray<BundledTokenListName> = BUNDLED_TOKEN_LISTS,
): ReadonlyArray<ListedToken> =>
  mergeListedTokens(lists.map((name) => bundledList(name).byChain.get(chainId) ?? []));

// ---------------------------------------------------------------------------------------------
// Operator lists

/** What one operator list gave a chain. */
export interface ParsedTokenList {
  /** Valid tokens of the chain, one entry an address, at most the cap. */
  readonly tokens: ReadonlyArray<ListedToken>;
  /** Entries dropped as malformed. */
  readonly malformed: number;
  /** Entries of other chain ids, skipped. */
  readonly otherChains: number;
  /** Valid tokens of the chain beyond the cap, left out. */
  readonly capped: number;
}

/**
 * An operator list's tokens for a chain. Two formats: a token list (`{ "tokens": [{ "chainId",
 * "address", "symbol", "name", "decimals" }] }`, the Uniswap token-list schema; only entries whose
 * `chainId` is the chain's are taken), or a JSON array of address strings, all taken to be of the
 * chain. Malformed entries are dropped and counted; anything else throws.
 */
export const parseTokenList = (
  json: unknown,
  chainId: number,
  source: string,
  maxTokens: number = TOKEN_LIST_DEFAULTS.maxOperatorTokens,
): ParsedTokenList => {
  const tokens = new Map<string, ListedToken>();
  let malformed = 0;
  let otherChains = 0;
  let capped = 0;
  // Past the cap an entry is only checked and counted, not built: a list of millions stays cheap.
  const take = (address: unknown, meta: ListMeta) => {
    const lower = listedAddress(address, meta);
    if (lower === undefined) malformed++;
    else if (tokens.has(lower)) return;
    else if (tokens.size >= maxTokens) capped++;
    else tokens.set(lower, toListedToken(address, meta, source)!);
  };
  if (Array.isArray(json)) {
    for (const entry of json) take(entry, {});
  } else if (isRecord(json) && Array.isArray(json.tokens)) {
    for (const entry of json.tokens) {
      if (!isRecord(entry) || !isChainId(entry.chainId)) malformed++;
      else if (entry.chainId !== chainId) otherChains++;
      else take(entry.address, entry);
    }
  } else {
    throw new Error('is not a token list: expected { "tokens": [...] } or a JSON array of addresses');
  }
  return { tokens: [...tokens.values()], malformed, otherChains, capped };
};

/** An operator list's name in logs and status: a URL without credentials, query or fragment. */
export const tokenListLabel = (location: string): string => {
  if (!/^https?:\/\//i.test(location)) return location;
  try {
    const url = new URL(location);
    return `${url.protocol}//${url.host}${url.pathname}${url.search === "" ? "" : "?…"}`;
  } catch {
    return "(an invalid URL)";
  }
};

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** A fetch's outcome: a new body, or the copy we have is current (HTTP 304). */
type Fetched =
  | { readonly kind: "body"; readonly body: string; readonly etag?: string; readonly lastModified?: string }
  | { readonly kind: "not-modified" };

/**
 * GETs a list with a time limit on the whole exchange (a body trickling in counts) and a size limit
 * on the body as received after decompression; a conditional request when a copy is held.
 */
export const fetchTokenList = async (
  url: string,
  limits: {
    readonly timeoutMs: number;
    readonly maxBytes: number;
    readonly etag?: string | undefined;
    readonly lastModified?: string | undefined;
  },
): Promise<Fetched> => {
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new Error(`no complete answer within ${limits.timeoutMs} ms`)),
    limits.timeoutMs,
  );
  try {
    const headers: Record<string, string> = { accept: "application/json" };
    if (limits.etag !== undefined) headers["if-none-match"] = limits.etag;
    if (limits.lastModified !== undefined) headers["if-modified-since"] = limits.lastModified;
    const response = await fetch(url, { headers, signal: abort.signal, redirect: "follow" });
    if (response.status === 304 && (limits.etag !== undefined || limits.lastModified !== undefined)) {
      await response.body?.cancel();
      return { kind: "not-modified" };
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`answered HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get("content-length"));
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      await response.body?.cancel();
      throw new Error(`is larger than ${megabytes(limits.maxBytes)} (${megabytes(declared)} declared)`);
    }
    const chunks: Array<Uint8Array> = [];
    let size = 0;
    if (response.body !== null) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limits.maxBytes) {
          await reader.cancel();
          throw new Error(`is larger than ${megabytes(limits.maxBytes)}`);
        }
        chunks.push(value);
      }
    }
    const etag = response.headers.get("etag") ?? undefined;
    const lastModified = response.headers.get("last-modified") ?? undefined;
    return {
      kind: "body",
      body: Buffer.concat(chunks).toString("utf8"),
      ...(etag === undefined ? {} : { etag }),
      ...(lastModified === undefined ? {} : { lastModified }),
    };
  } catch (cause) {
    if (abort.signal.aborted) throw abort.signal.reason instanceof Error ? abort.signal.reason : cause;
    throw cause;
  } finally {
    clearTimeout(timer);
  }
};

/** A fault of an operator list found at start: the service does not start. */
export class TokenListsError extends Error {
  override readonly name = "TokenListsError";
}

/** One operator list of one chain: its last good copy and when it is fetched again. */
interface OperatorList {
  readonly chainId: number;
  readonly chainName: string;
  readonly location: string;
  readonly label: string;
  readonly kind: "file" | "url";
  /** Absolute path of a file; the URL of a URL. */
  readonly target: string;
  parsed: ParsedTokenList | undefined;
  fetchedAt: number | undefined;
  nextFetchAt: number | undefined;
  error: string | undefined;
  etag: string | undefined;
  lastModified: string | undefined;
}

/** What a chain's lists hold, for `/healthz`, the TUI and logs. Times are epoch ms. */
export interface ChainTokenListsStatus {
  readonly chain_id: number;
  readonly chain: string;
  /** Tokens tokensFor answers: every list together, one entry an address. */
  readonly total: number;
  /** Tokens each enabled bundled list has for the chain id. */
  readonly bundled: Readonly<Partial<Record<BundledTokenListName, number>>>;
  readonly operator: ReadonlyArray<{
    readonly source: string;
    readonly kind: "file" | "url";
    /** Tokens of the last good copy for this chain (0 while none was ever had). */
    readonly tokens: number;
    readonly malformed: number;
    readonly other_chains: number;
    /** Tokens of the chain beyond the per-chain cap, left out of this list. */
    readonly capped: number;
    readonly fetched_at?: number;
    readonly next_fetch_at?: number;
    /** Why the last fetch failed; the last good copy, if any, stays in use. */
    readonly error?: string;
  }>;
  /** Operator tokens left out by the per-chain cap, every list together. */
  readonly operator_capped: number;
}

export interface TokenLists {
  /** The chain's listed tokens: its operator lists in the order named, then its bundled lists. */
  readonly tokensFor: (chainId: number) => ReadonlyArray<ListedToken>;
  /** Fetches every URL list that is due (all of them with `force`); never rejects. */
  readonly refresh: (options?: { readonly force?: boolean }) => Promise<void>;
  readonly status: () => ReadonlyArray<ChainTokenListsStatus>;
  /** Stops the refresh timer. */
  readonly close: () => void;
}

export interface TokenListsOptions {
  /** Directory relative file paths are read from: the chains file's. Default: the working directory. */
  readonly baseDir?: string;
  /** Clock for the refresh schedule. Default Date.now. */
  readonly now?: () => number;
  readonly refreshIntervalMs?: number;
  readonly retryIntervalMs?: number;
  readonly fetchTimeoutMs?: number;
  readonly maxListBytes?: number;
  readonly maxOperatorTokens?: number;
  /** Whether a timer refreshes URL lists when due (default true; the timer does not hold the process open). */
  readonly autoRefresh?: boolean;
  readonly warn?: (message: string, chainId: number) => void;
}

type ChainLists = Pick<ChainConfig, "chain_id" | "name" | "token_lists" | "bundled_token_lists">;

const bundledNamesOf = (chain: ChainLists): ReadonlyArray<BundledTokenListName> =>
  chain.bundled_token_lists === undefined || chain.bundled_token_lists === true
    ? BUNDLED_TOKEN_LISTS
    : chain.bundled_token_lists === false
      ? []
      : BUNDLED_TOKEN_LISTS.filter((name) =>
          (chain.bundled_token_lists as ReadonlyArray<string>).includes(name),
        );

const reasonOf = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause);
  // fetch's "fetch failed" says nothing; its cause says what (ECONNREFUSED, a bad certificate).
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : "";
  return `${cause.message}${inner}`;
};

/**
 * The token lists of the configured chains. Operator files are read now: one that is missing,
 * unreadable, too large, not JSON or not a token list rejects with a TokenListsError naming the
 * chain and the path. URL lists are fetched now too (in parallel, each within the fetch time
 * limit), but a failure only warns: the list is tried again after `retryIntervalMs`, and a
 * refresh every `refreshIntervalMs` replaces a good copy only with another good one. Bundled
 * lists are read on the first `tokensFor` of a chain that uses them.
 */
export const makeTokenLists = async (
  chains: ReadonlyArray<ChainLists>,
  options: TokenListsOptions = {},
): Promise<TokenLists> => {
  const now = options.now ?? Date.now;
  const baseDir = options.baseDir ?? process.cwd();
  const refreshIntervalMs = options.refreshIntervalMs ?? TOKEN_LIST_DEFAULTS.refreshIntervalMs;
  const retryIntervalMs = options.retryIntervalMs ?? TOKEN_LIST_DEFAULTS.retryIntervalMs;
  const fetchTimeoutMs = options.fetchTimeoutMs ?? TOKEN_LIST_DEFAULTS.fetchTimeoutMs;
  const maxListBytes = options.maxListBytes ?? TOKEN_LIST_DEFAULTS.maxListBytes;
  const maxOperatorTokens = options.maxOperatorTokens ?? TOKEN_LIST_DEFAULTS.maxOperatorTokens;
  const warn = options.warn ?? ((message: string) => console.warn(message));

  const byChain = new Map(chains.map((chain) => [chain.chain_id, chain]));
  const lists: Array<OperatorList> = chains.flatMap((chain) =>
    (chain.token_lists ?? []).map((location): OperatorList => {
      const kind = /^https?:\/\//i.test(location) ? "url" : "file";
      return {
        chainId: chain.chain_id,
        chainName: chain.name,
        location,
        label: tokenListLabel(location),
        kind,
        target: kind === "url" ? location : isAbsolute(location) ? location : resolve(baseDir, location),
        parsed: undefined,
        fetchedAt: undefined,
        nextFetchAt: undefined,
        error: undefined,
        etag: undefined,
        lastModified: undefined,
      };
    }),
  );
  const merged = new Map<number, { tokens: ReadonlyArray<ListedToken>; capped: number }>();

  const fileFault = (list: OperatorList, what: string) =>
    new TokenListsError(
      `chain ${list.chainName} (${list.chainId}): token list "${list.location}" (${list.target}) ${what}`,
    );

  const readFileList = async (list: OperatorList): Promise<void> => {
    let body: string;
    try {
      const info = await stat(list.target);
      if (!info.isFile()) throw new Error("is not a file");
      if (info.size > maxListBytes)
        throw fileFault(list, `is larger than ${megabytes(maxListBytes)} (${megabytes(info.size)})`);
      body = await readFile(list.target, "utf8");
    } catch (cause) {
      if (cause instanceof TokenListsError) throw cause;
      throw fileFault(list, `cannot be read: ${reasonOf(cause)}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw fileFault(list, "is not valid JSON");
    }
    try {
      list.parsed = parseTokenList(json, list.chainId, list.label, maxOperatorTokens);
    } catch (cause) {
      throw fileFault(list, reasonOf(cause));
    }
    list.fetchedAt = now();
  };

  const fetchUrlList = async (list: OperatorList): Promise<void> => {
    try {
      const fetched = await fetchTokenList(list.target, {
        timeoutMs: fetchTimeoutMs,
        maxBytes: maxListBytes,
        etag: list.parsed === undefined ? undefined : list.etag,
        lastModified: list.parsed === undefined ? undefined : list.lastModified,
      });
      if (fetched.kind === "body") {
        let json: unknown;
        try {
          json = JSON.parse(fetched.body);
        } catch {
          throw new Error("is not valid JSON");
        }
        list.parsed = parseTokenList(json, list.chainId, list.label, maxOperatorTokens);
        list.etag = fetched.etag;
        list.lastModified = fetched.lastModified;
        merged.delete(list.chainId);
      }
      list.fetchedAt = now();
      list.error = undefined;
      list.nextFetchAt = now() + refreshIntervalMs;
    } catch (cause) {
      list.error = reasonOf(cause);
      list.nextFetchAt = now() + retryIntervalMs;
      warn(
        `token lists: chain ${list.chainName} (${list.chainId}): token list ${list.label} ${list.error}; ` +
          (list.parsed === undefined
            ? `none held yet, tried again in ${Math.round(retryIntervalMs / 60_000)} min`
            : `keeping the copy of ${new Date(list.fetchedAt ?? 0).toISOString()}`),
        list.chainId,
      );
    }
  };

  await Promise.all(lists.filter((list) => list.kind === "file").map(readFileList));
  for (const list of lists) {
    if (list.kind === "file" && list.parsed !== undefined && list.parsed.tokens.length === 0)
      warn(
        `token lists: chain ${list.chainName} (${list.chainId}): token list "${list.location}" has no token ` +
          `for chain id ${list.chainId} (${list.parsed.otherChains} of other chains, ${list.parsed.malformed} malformed)`,
        list.chainId,
      );
  }

  let inFlight: Promise<void> | undefined;
  const refresh = (refreshOptions: { readonly force?: boolean } = {}): Promise<void> => {
    if (inFlight !== undefined) return inFlight;
    const due = lists.filter(
      (list) =>
        list.kind === "url" &&
        (refreshOptions.force === true || list.nextFetchAt === undefined || list.nextFetchAt <= now()),
    );
    if (due.length === 0) return Promise.resolve();
    inFlight = Promise.all(due.map(fetchUrlList)).then(
      () => {
        inFlight = undefined;
        schedule();
      },
      () => {
        inFlight = undefined;
        schedule();
      },
    );
    return inFlight;
  };

  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const schedule = () => {
    if (options.autoRefresh === false || closed) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const next = Math.min(
      ...lists.filter((list) => list.kind === "url").map((list) => list.nextFetchAt ?? now()),
    );
    if (!Number.isFinite(next)) return;
    const delay = Math.min(Math.max(next - now(), 1_000), 2 ** 31 - 1);
    timer = setTimeout(() => {
      timer = undefined;
      void refresh();
    }, delay);
    timer.unref();
  };

  await refresh({ force: true });
  schedule();

  const warnedCap = new Set<number>();
  const operatorTokens = (chainId: number) => {
    const cached = merged.get(chainId);
    if (cached !== undefined) return cached;
    const all = mergeListedTokens(
      lists.filter((list) => list.chainId === chainId).map((list) => list.parsed?.tokens ?? []),
    );
    const chainLists = lists.filter((list) => list.chainId === chainId);
    const capped =
      Math.max(0, all.length - maxOperatorTokens) +
      chainLists.reduce((sum, list) => sum + (list.parsed?.capped ?? 0), 0);
    const entry = { tokens: all.length > maxOperatorTokens ? all.slice(0, maxOperatorTokens) : all, capped };
    merged.set(chainId, entry);
    if (capped > 0 && !warnedCap.has(chainId)) {
      warnedCap.add(chainId);
      warn(
        `token lists: chain ${chainLists[0]?.chainName} (${chainId}): its token lists name more than ` +
          `${maxOperatorTokens} tokens; ${capped} left out`,
        chainId,
      );
    }
    return entry;
  };

  const answers = new Map<
    number,
    { operator: ReadonlyArray<ListedToken>; tokens: ReadonlyArray<ListedToken> }
  >();
  const tokensFor = (chainId: number): ReadonlyArray<ListedToken> => {
    const chain = byChain.get(chainId);
    if (chain === undefined) return [];
    const operator = operatorTokens(chainId).tokens;
    const cached = answers.get(chainId);
    if (cached !== undefined && cached.operator === operator) return cached.tokens;
    const tokens = mergeListedTokens([operator, listedTokens(chainId, bundledNamesOf(chain))]);
    answers.set(chainId, { operator, tokens });
    return tokens;
  };

  const status = (): ReadonlyArray<ChainTokenListsStatus> =>
    chains.map((chain) => ({
      chain_id: chain.chain_id,
      chain: chain.name,
      total: tokensFor(chain.chain_id).length,
      bundled: Object.fromEntries(
        bundledNamesOf(chain).map((name) => [
          name,
          bundledList(name).byChain.get(chain.chain_id)?.length ?? 0,
        ]),
      ),
      operator: lists
        .filter((list) => list.chainId === chain.chain_id)
        .map((list) => ({
          source: list.label,
          kind: list.kind,
          tokens: list.parsed?.tokens.length ?? 0,
          malformed: list.parsed?.malformed ?? 0,
          other_chains: list.parsed?.otherChains ?? 0,
          capped: list.parsed?.capped ?? 0,
          ...(list.fetchedAt === undefined ? {} : { fetched_at: list.fetchedAt }),
          ...(list.nextFetchAt === undefined ? {} : { next_fetch_at: list.nextFetchAt }),
          ...(list.error === undefined ? {} : { error: list.error }),
        })),
      operator_capped: operatorTokens(chain.chain_id).capped,
    }));

  return {
    tokensFor,
    refresh,
    status,
    close: () => {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
};
