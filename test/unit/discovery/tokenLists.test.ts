import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  bundledListSummary,
  type ListedToken,
  listedTokens,
  makeTokenLists,
  parseTokenList,
  TokenListsError,
  tokenListLabel,
} from "../../../src/discovery/tokenLists.js";

const ADDRESS = /^0x[0-9a-f]{40}$/;
const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const A = "0x1111111111111111111111111111111111111111";
const B = "0x2222222222222222222222222222222222222222";
const C = "0x3333333333333333333333333333333333333333";
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";

const chain = (chain_id: number, extra: Record<string, unknown> = {}) => ({
  chain_id,
  name: `chain${chain_id}`,
  ...extra,
});

const tempDir = () => mkdtemp(join(tmpdir(), "svc-tokenlists-"));

const expectValid = (tokens: ReadonlyArray<ListedToken>) => {
  for (const token of tokens) {
    expect(token.address).toMatch(ADDRESS);
    if (token.decimals !== undefined) expect(token.decimals).toBeGreaterThanOrEqual(0);
    if (token.decimals !== undefined) expect(token.decimals).toBeLessThanOrEqual(36);
  }
  expect(new Set(tokens.map((t) => t.address)).size).toBe(tokens.length);
};

describe("bundled token lists", () => {
  it("behavior: each served chain id has a plausible number of valid, distinct tokens", () => {
    const ethereum = listedTokens(1);
    expect(ethereum.length).toBeGreaterThan(1_000);
    expect(listedTokens(1, ["uniswap"]).length).toBeGreaterThan(300);
    expect(listedTokens(1, ["metamask"]).length).toBeGreaterThan(600);
    expect(listedTokens(8453).length).toBeGreaterThan(300);
    expect(listedTokens(10).length).toBeGreaterThan(150);
    expect(listedTokens(57073).length).toBeGreaterThanOrEqual(10);
    for (const id of [1, 8453, 10, 57073, 42161, 130]) expectValid(listedTokens(id));
    expect(ethereum.find((t) => t.address === USDC)).toMatchObject({ symbol: "USDC", decimals: 6 });
    expect(listedTokens(999_999_999)).toEqual([]);
  });

  it("behavior: entries that are not EVM tokens are dropped, not fatal", () => {
    // Uniswap's list carries Solana tokens (base58 addresses); the Superchain list names ETH as 0x0.
    expect(bundledListSummary("uniswap").malformed).toBeGreaterThan(100);
    expect(bundledListSummary("superchain").malformed).toBeGreaterThan(0);
    expect(listedTokens(1).some((t) => t.address === addr(0))).toBe(false);
  });

  it("behavior: decimals two lists disagree on are left to be read from the chain", () => {
    // FLUX: 18 in Uniswap's list, 8 in the Superchain list.
    const flux = "0x720cd16b011b987da3518fbf38c3071d4f0d1495";
    expect(listedTokens(1, ["uniswap"]).find((t) => t.address === flux)?.decimals).toBe(18);
    const merged = listedTokens(1).find((t) => t.address === flux);
    expect(merged).toMatchObject({ symbol: "FLUX", source: "uniswap" });
    expect(merged?.decimals).toBeUndefined();
  });

  it("behavior: bundled lists can be turned off or chosen per chain", async () => {
    const lists = await makeTokenLists(
      [
        chain(1, { bundled_token_lists: false }),
        chain(8453, { bundled_token_lists: ["metamask"] }),
        chain(10, { bundled_token_lists: ["superchain"] }),
        chain(57073),
      ],
      { autoRefresh: false },
    );
    expect(lists.tokensFor(1)).toEqual([]);
    expect(lists.tokensFor(8453)).toEqual([]);
    expect(lists.tokensFor(10).every((t) => t.source === "superchain")).toBe(true);
    expect(lists.tokensFor(57073).length).toBe(listedTokens(57073).length);
    expect(lists.tokensFor(42161)).toEqual([]); // not a configured chain
    expect(lists.status().find((s) => s.chain_id === 10)?.bundled).toEqual({
      superchain: listedTokens(10, ["superchain"]).length,
    });
  });
});

describe("operator token list parsing", () => {
  it("behavior: a token list gives the chain's entries with their metadata; an array gives addresses", () => {
    const list = {
      name: "ops",
      tokens: [
        { chainId: 1, address: A.toUpperCase().replace("0X", "0x"), symbol: "AAA", name: "A", decimals: 6 },
        { chainId: 8453, address: B, symbol: "BBB", decimals: 18 },
        { chainId: 1, address: A, symbol: "dup" },
        { chainId: 1, address: C },
      ],
    };
    expect(parseTokenList(list, 1, "ops.json")).toEqual({
      tokens: [
        { address: A, symbol: "AAA", name: "A", decimals: 6, source: "ops.json" },
        { address: C, source: "ops.json" },
      ],
      malformed: 0,
      otherChains: 1,
      capped: 0,
    });
    expect(parseTokenList([A, B, "nope"], 57073, "a.json").tokens.map((t) => t.address)).toEqual([A, B]);
  });

  it("edge: hostile entries are dropped and counted, the rest kept", () => {
    const list = {
      tokens: [
        null,
        7,
        "0x1111",
        { chainId: 1 },
        { chainId: 1, address: "0x11111111111111111111111111111111111111zz" },
        { chainId: 1, address: `${A}00` },
        { chainId: 1, address: A, decimals: 255 },
        { chainId: 1, address: A, decimals: 1.5 },
        { chainId: 1, address: A, decimals: "18" },
        { chainId: "1", address: A },
        { chainId: -1, address: A },
        { chainId: 1.5, address: A },
        { chainId: 1, address: addr(0) },
        { chainId: 1, address: { toString: () => A } },
        { chainId: 1, address: B, symbol: "X\u001b[31m", name: "n".repeat(10_000), decimals: 0 },
        { chainId: 1, address: C, symbol: 5, name: ["x"], decimals: null },
      ],
    };
    const parsed = parseTokenList(list, 1, "evil");
    expect(parsed.tokens).toEqual([
      { address: B, decimals: 0, source: "evil" },
      { address: C, source: "evil" },
    ]);
    expect(parsed.malformed).toBe(14);
    for (const json of [null, 5, "x", {}, { tokens: {} }, { tokens: "0x" }])
      expect(() => parseTokenList(json, 1, "evil")).toThrow(/is not a token list/);
  });

  it("edge: a list of 10^6 entries is cut at the cap quickly", () => {
    const entries = Array.from({ length: 1_000_000 }, (_, i) => addr(i + 1));
    const started = performance.now();
    const parsed = parseTokenList(entries, 1, "big", 20_000);
    expect(parsed.tokens.length).toBe(20_000);
    expect(parsed.capped).toBe(980_000);
    // About 2.5 s on 2 idle cores, most of it a cold JIT; the bound leaves room for a CI machine whose
    // cores are busy with the rest of the suite. A cut that scanned what it kept for each entry
    // (quadratic) takes minutes.
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it("edge: URL credentials and queries stay out of labels", () => {
    expect(tokenListLabel("https://user:secret@lists.example/a/b.json?key=k#x")).toBe(
      "https://lists.example/a/b.json?…",
    );
    expect(tokenListLabel("lists/base.json")).toBe("lists/base.json");
  });
});

describe("operator token list files", () => {
  it("behavior: files relative to the chains file's directory or absolute; operator entries first", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "lists"));
    await writeFile(
      join(dir, "lists", "eth.json"),
      JSON.stringify({ tokens: [{ chainId: 1, address: USDC, symbol: "USDC.op", decimals: 6 }] }),
    );
    const absolute = join(dir, "more.json");
    await writeFile(absolute, JSON.stringify([A, B]));
    const lists = await makeTokenLists(
      [chain(1, { token_lists: ["lists/eth.json", absolute] }), chain(8453, { token_lists: [absolute] })],
      { baseDir: dir, autoRefresh: false },
    );
    const eth = lists.tokensFor(1);
    expect(eth.slice(0, 3)).toEqual([
      { address: USDC, symbol: "USDC.op", decimals: 6, name: "USDCoin", source: "lists/eth.json" },
      { address: A, source: absolute },
      { address: B, source: absolute },
    ]);
    expect(eth.length).toBe(listedTokens(1).length + 2);
    expectValid(eth);
    const base = lists.status().find((s) => s.chain_id === 8453)!;
    expect(base.operator).toEqual([
      expect.objectContaining({ source: absolute, kind: "file", tokens: 2, malformed: 0, capped: 0 }),
    ]);
    expect(base.total).toBe(lists.tokensFor(8453).length);
  });

  it("error: a missing, unreadable, oversized, non-JSON or misshapen file stops the start, naming chain and path", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "bad.json"), "{ not json");
    await writeFile(join(dir, "shape.json"), JSON.stringify({ tokens: { a: 1 } }));
    await writeFile(
      join(dir, "big.json"),
      JSON.stringify(Array.from({ length: 100 }, (_, i) => addr(i + 1))),
    );
    const failure = async (file: string) =>
      makeTokenLists([{ chain_id: 8453, name: "base", token_lists: [file] }], {
        baseDir: dir,
        autoRefresh: false,
        maxListBytes: 1_000,
      }).then(
        () => "started",
        (error: unknown) => (error instanceof TokenListsError ? error.message : `other: ${String(error)}`),
      );
    expect(await failure("missing.json")).toMatch(
      new RegExp(
        `^chain base \\(8453\\): token list "missing.json" \\(${join(dir, "missing.json")}\\) cannot be read: .*ENOENT`,
      ),
    );
    expect(await failure(".")).toMatch(/token list "\." .* cannot be read: is not a file/);
    expect(await failure("bad.json")).toMatch(
      /chain base \(8453\): token list "bad.json" .* is not valid JSON$/,
    );
    expect(await failure("shape.json")).toMatch(/token list "shape.json" .* is not a token list/);
    expect(await failure("big.json")).toMatch(/token list "big.json" .* is larger than/);
  });

  it("edge: operator lists of a chain together are capped, with a warning", async () => {
    const dir = await tempDir();
    await writeFile(join(dir, "a.json"), JSON.stringify(Array.from({ length: 30 }, (_, i) => addr(i + 1))));
    await writeFile(join(dir, "b.json"), JSON.stringify(Array.from({ length: 30 }, (_, i) => addr(i + 21))));
    const warnings: Array<string> = [];
    const lists = await makeTokenLists(
      [chain(777, { token_lists: ["a.json", "b.json"], bundled_token_lists: false })],
      { baseDir: dir, autoRefresh: false, maxOperatorTokens: 40, warn: (m) => warnings.push(m) },
    );
    expect(lists.tokensFor(777).map((t) => t.address)).toEqual(
      Array.from({ length: 40 }, (_, i) => addr(i + 1)),
    );
    expect(lists.status()[0]!.operator_capped).toBe(10);
    expect(warnings).toEqual([expect.stringMatching(/more than 40 tokens; 10 left out/)]);
  });
});

describe("operator token list URLs", () => {
  let server: Server;
  let base: string;
  let requests: Array<string> = [];
  /** What /live answers next: a status and body, and an optional etag. */
  let live: { status: number; body: string; etag?: string } = { status: 200, body: "[]" };
  const slowBodies: Array<ServerResponse> = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(`${req.url} ${req.headers["if-none-match"] ?? ""}`.trim());
      switch (new URL(req.url ?? "/", "http://localhost").pathname) {
        case "/good":
          res.setHeader("content-type", "application/json");
          res.end(JSON.stringify({ tokens: [{ chainId: 10, address: A, symbol: "AAA", decimals: 18 }] }));
          return;
        case "/huge-declared":
          res.setHeader("content-length", String(100 * 1024 * 1024));
          res.write("[");
          return; // never finishes: the client must give up on the header alone
        case "/huge-chunked": {
          // No length given: 1 MB chunks of a valid-looking array until the client stops reading.
          const chunk = `"${A}",`.repeat(23_000);
          res.write("[");
          const pump = () => {
            while (!res.destroyed && res.write(chunk)) {}
            if (!res.destroyed) res.once("drain", pump);
          };
          res.on("close", () => res.removeAllListeners("drain"));
          pump();
          return;
        }
        case "/slow":
          res.write("[");
          slowBodies.push(res); // headers sent, the body never ends
          return;
        case "/bad-json":
          res.end("<html>not json</html>");
          return;
        case "/shape":
          res.end(JSON.stringify({ tokens: 5 }));
          return;
        case "/live":
          if (live.etag !== undefined) res.setHeader("etag", live.etag);
          if (live.etag !== undefined && req.headers["if-none-match"] === live.etag) {
            res.statusCode = 304;
            res.end();
            return;
          }
          res.statusCode = live.status;
          res.end(live.body);
          return;
        default:
          res.statusCode = 404;
          res.end("no");
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const res of slowBodies) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("behavior: a good list is fetched at start; bad ones warn and are tried again later, never fatal", async () => {
    requests = [];
    const warnings: Array<string> = [];
    const paths = ["/good", "/huge-declared", "/huge-chunked", "/slow", "/bad-json", "/shape", "/missing"];
    const started = performance.now();
    const lists = await makeTokenLists(
      [chain(10, { token_lists: paths.map((p) => `${base}${p}?key=secret`), bundled_token_lists: false })],
      {
        autoRefresh: false,
        fetchTimeoutMs: 500,
        maxListBytes: 4 * 1024 * 1024,
        now: () => 1_000_000,
        warn: (m) => warnings.push(m),
      },
    );
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(lists.tokensFor(10)).toEqual([
      { address: A, symbol: "AAA", decimals: 18, source: `${base}/good?…` },
    ]);
    const errors = Object.fromEntries(
      lists.status()[0]!.operator.map((o) => [o.source.slice(base.length, -"?…".length), o.error]),
    );
    expect(errors).toEqual({
      "/good": undefined,
      "/huge-declared": expect.stringMatching(/is larger than 4 MB \(100 MB declared\)/),
      "/huge-chunked": expect.stringMatching(/is larger than 4 MB$/),
      "/slow": "no complete answer within 500 ms",
      "/bad-json": "is not valid JSON",
      "/shape": expect.stringMatching(/is not a token list/),
      "/missing": "answered HTTP 404",
    });
    expect(lists.status()[0]!.operator.find((o) => o.error !== undefined)?.next_fetch_at).toBe(
      1_000_000 + 15 * 60_000,
    );
    expect(warnings.length).toBe(6);
    expect(warnings.every((w) => w.includes("none held yet") && !w.includes("secret"))).toBe(true);
  });

  it("behavior: refresh on schedule by a controllable clock; a failed refresh keeps the last good copy", async () => {
    let clock = 0;
    const warnings: Array<string> = [];
    live = { status: 200, body: JSON.stringify([A, B]) };
    requests = [];
    const lists = await makeTokenLists(
      [chain(8453, { token_lists: [`${base}/live`], bundled_token_lists: false })],
      {
        autoRefresh: false,
        now: () => clock,
        warn: (m) => warnings.push(m),
      },
    );
    const held = () => lists.tokensFor(8453).map((t) => t.address);
    expect(held()).toEqual([A, B]);
    expect(requests).toEqual(["/live"]);

    live = { status: 200, body: "not json" };
    clock = 5 * 3600_000; // not yet due
    await lists.refresh();
    expect(requests.length).toBe(1);

    clock = 6 * 3600_000; // due: the fetch fails, the copy stays
    await lists.refresh();
    expect(requests.length).toBe(2);
    expect(held()).toEqual([A, B]);
    const failed = lists.status()[0]!.operator[0]!;
    expect(failed).toMatchObject({ tokens: 2, fetched_at: 0, error: "is not valid JSON" });
    expect(failed.next_fetch_at).toBe(6 * 3600_000 + 15 * 60_000);
    expect(warnings).toEqual([expect.stringMatching(/keeping the copy of 1970-01-01T00:00:00.000Z/)]);

    live = { status: 500, body: "" };
    clock += 15 * 60_000;
    await lists.refresh();
    expect(held()).toEqual([A, B]);
    expect(lists.status()[0]!.operator[0]!.error).toBe("answered HTTP 500");

    live = { status: 200, body: JSON.stringify({ tokens: [{ chainId: 8453, address: C }] }), etag: '"v3"' };
    clock += 15 * 60_000;
    await lists.refresh();
    expect(held()).toEqual([C]);
    expect(lists.status()[0]!.operator[0]).toMatchObject({ tokens: 1, fetched_at: clock });
    expect(lists.status()[0]!.operator[0]!.error).toBeUndefined();

    // Unchanged (304): the copy is kept and counts as fresh.
    clock += 6 * 3600_000;
    await lists.refresh();
    expect(requests.at(-1)).toBe('/live "v3"');
    expect(held()).toEqual([C]);
    expect(lists.status()[0]!.operator[0]!.fetched_at).toBe(clock);

    // force fetches whatever the schedule says.
    live = { status: 200, body: JSON.stringify([A]) };
    await lists.refresh({ force: true });
    expect(held()).toEqual([A]);
    lists.close();
  });

  it("behavior: with auto refresh on, a list is fetched at start and close clears the timer", async () => {
    const lists = await makeTokenLists([chain(8453, { token_lists: [`${base}/good`] })], {
      fetchTimeoutMs: 2_000,
    });
    lists.close();
    expect(lists.status()[0]!.operator[0]!.error).toBeUndefined();
  });
});
