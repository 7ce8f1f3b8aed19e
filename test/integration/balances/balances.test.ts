import { headers as natsHeaders } from "@nats-io/transport-node";
import { createPublicClient, type Hex, http, type PublicClient, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManifestChain, ManifestPool } from "../../../src/devnet/DevnetManifest.js";
import { blockAtOrBefore } from "../../support/blockAtOrBefore.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { devnetWallet } from "../../support/devnetWallet.js";
import { deepest } from "../../support/referencePrices.js";
import { eventually } from "../../support/serviceHarness.js";

interface Entry {
  chain_id: number;
  address: string;
  amount: string;
  symbol?: string;
  name?: string;
  decimals?: number;
  price_usd?: number;
  value_usd?: number;
  pool_size?: number;
  low_liquidity?: boolean;
  historical_prices?: Array<{ offset_hours: number; price_usd: number }>;
  token_metadata?: { logo?: string };
  pool?: { pool_type: string; address: string; chain_id: number; tokens: Array<string> };
}
interface Body {
  wallet_address: string;
  balances: Array<Entry>;
  warnings?: Array<{ code: string; chain_ids: Array<number> }>;
  next_offset?: string;
  errors?: unknown;
}

let env: DevnetService;
let chain: ManifestChain;
let client: PublicClient;
const erc20 = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function transfer(address,uint256) returns (bool)",
]);

const json = async (path: string) => {
  const res = await env.get(path);
  return { status: res.status, cu: res.headers.get("x-compute-units"), body: (await res.json()) as Body };
};
const token = (symbol: string) => chain.tokens[symbol]!.address.toLowerCase();
const entryOf = (body: Body, address: string) => body.balances.find((b) => b.address === address);
const stablePools = (symbol: string): ReadonlyArray<ManifestPool> => {
  const stables = new Set(
    Object.values(chain.tokens)
      .filter((t) => t.role === "stablecoin")
      .map((t) => t.address.toLowerCase()),
  );
  const address = token(symbol);
  return chain.pools.filter((p) => {
    const [a, b] = [p.token0.toLowerCase(), p.token1.toLowerCase()];
    return (a === address && stables.has(b)) || (b === address && stables.has(a));
  });
};

beforeAll(async () => {
  env = await startDevnetService();
  chain = env.devnet.manifest.chains.find((c) => c.chain_id === 1)!;
  client = createPublicClient({ transport: http(chain.rpc_url) }) as PublicClient;
});

afterAll(async () => {
  await env?.stop();
});

describe("GET /v1/evm/balances on the devnet", () => {
  it("default: the whale's amounts equal balanceOf and getBalance at the same block, 1 CU per default chain", async () => {
    const whale = chain.wallets.whale!.toLowerCase();
    const { status, cu, body } = await json(`/v1/evm/balances/${chain.wallets.whale}`);
    expect(status).toBe(200);
    expect(cu).toBe("3"); // ethereum, base, optimism carry the default tag; ink does not
    expect(body.wallet_address).toBe(whale);
    expect(new Set(body.balances.map((b) => b.chain_id))).toEqual(new Set([1, 10, 8453]));
    const block = await client.getBlockNumber();
    const onChain1 = body.balances.filter((b) => b.chain_id === 1);
    expect(onChain1.length).toBeGreaterThanOrEqual(6);
    for (const entry of onChain1) {
      const amount =
        entry.address === "native"
          ? await client.getBalance({ address: whale as Hex, blockNumber: block })
          : await client.readContract({
              address: entry.address as Hex,
              abi: erc20,
              functionName: "balanceOf",
              args: [whale as Hex],
              blockNumber: block,
            });
      expect(entry.amount, entry.symbol).toBe(amount.toString());
    }
    // Sorted by value, then chain, then address; unpriced last.
    const values = body.balances.map((b) => b.value_usd ?? -1);
    expect([...values].sort((a, b) => b - a)).toEqual(values);
  });

  it("behavior: WETH is priced from its deepest stable pool, exactly as computed from the pools' state", async () => {
    const block = await client.getBlockNumber();
    const reference = await deepest(client, chain, stablePools("WETH"), token("WETH"), 1, block);
    const { body } = await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&metadata=pools`);
    const weth = entryOf(body, token("WETH"))!;
    expect(weth.price_usd! / reference.priceUsd).toBeCloseTo(1, 9);
    expect(weth.pool_size! / reference.poolSize).toBeCloseTo(1, 6);
    expect(weth.pool?.tokens).toContain(token("WETH"));
    const native = entryOf(body, "native")!;
    expect(native.price_usd).toBe(weth.price_usd);
    expect(native).not.toHaveProperty("pool_size");
    expect(native).not.toHaveProperty("name");
  });

  it("behavior: the deep V3 pool beats a thinner V2 pool quoting another price; a hop-only token routes through WETH", async () => {
    const block = await client.getBlockNumber();
    const { body } = await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&metadata=pools`);
    const weth = await deepest(client, chain, stablePools("WETH"), token("WETH"), 1, block);

    const uni = entryOf(body, token("UNI"))!;
    const v3 = chain.pools.find((p) => p.purpose === "v3_deep")!;
    const v2 = chain.pools.find((p) => p.purpose === "v2_thin_other_price")!;
    expect(uni.pool?.address).toBe(v3.address!.toLowerCase());
    expect(uni.pool?.pool_type).toBe("uniswap_v3");
    const otherUsd = (p: ManifestPool) =>
      (p.symbol0 === "UNI" ? p.symbol1 : p.symbol0) === "WETH" ? weth.priceUsd : 1;
    const viaV3 = await deepest(client, chain, [v3], token("UNI"), otherUsd(v3), block);
    const viaV2 = await deepest(client, chain, [v2], token("UNI"), otherUsd(v2), block);
    expect(uni.price_usd! / viaV3.priceUsd).toBeCloseTo(1, 6);
    expect(Math.abs(viaV2.priceUsd / viaV3.priceUsd - 1)).toBeGreaterThan(0.01);

    const wbtc = entryOf(body, token("WBTC"))!;
    const hop = chain.pools.find((p) => p.purpose === "weth_hop_only")!;
    const viaWeth = await deepest(client, chain, [hop], token("WBTC"), weth.priceUsd, block);
    expect(wbtc.pool?.address).toBe(hop.address!.toLowerCase());
    expect(wbtc.price_usd! / viaWeth.priceUsd).toBeCloseTo(1, 6);
    expect(wbtc.pool_size! / viaWeth.poolSize).toBeCloseTo(1, 6);
  });

  it("behavior: low liquidity and spam are flagged by pool size; unpriced tokens carry no price fields; a stablecoin without a pool has size 0", async () => {
    const { body } = await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1`);
    const mkr = entryOf(body, token("MKR"))!;
    expect(mkr.pool_size).toBeGreaterThanOrEqual(100);
    expect(mkr.pool_size).toBeLessThan(10_000);
    expect(mkr.low_liquidity).toBe(true);
    const spam = entryOf(body, token("SPAM"))!;
    expect(spam.pool_size).toBeLessThan(100);
    const noPool = entryOf(body, token("NONAME"))!;
    expect(noPool).toBeDefined();
    for (const field of ["price_usd", "value_usd", "pool_size", "low_liquidity"])
      expect(noPool).not.toHaveProperty(field);
    expect(entryOf(body, token("USDC"))?.low_liquidity).toBe(false);
    // DAI is a configured stablecoin without any pool: worth 1 by configuration, backed by nothing onchain.
    expect(entryOf(body, token("DAI"))).toMatchObject({ price_usd: 1, pool_size: 0, low_liquidity: true });

    const filtered = (
      await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&exclude_spam_tokens=true`)
    ).body;
    expect(entryOf(filtered, token("SPAM"))).toBeUndefined();
    expect(entryOf(filtered, token("MKR"))).toBeDefined();
    expect(entryOf(filtered, token("NONAME"))).toBeDefined();
    expect(entryOf(filtered, token("DAI"))).toBeUndefined();
  });

  it("args: filters, metadata, limit and chain tags", async () => {
    const native = (await json(`/v1/evm/balances/${chain.wallets.whale}?filters=native`)).body;
    expect(native.balances.every((b) => b.address === "native")).toBe(true);
    expect(native.balances).toHaveLength(3);
    const tokens = (await json(`/v1/evm/balances/${chain.wallets.whale}?filters=erc20&chain_ids=1`)).body;
    expect(tokens.balances.some((b) => b.address === "native")).toBe(false);
    const logos = (await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&metadata=logo`)).body;
    expect(entryOf(logos, token("USDC"))?.token_metadata?.logo).toBe(
      `${env.service.baseUrl}/beta/token/logo/1/${token("USDC")}`,
    );
    const logo = await fetch(entryOf(logos, token("USDC"))!.token_metadata!.logo!);
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toBe("image/svg+xml");
    expect(await logo.text()).toContain(">USDC</text>");
    const limited = await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&limit=2`);
    expect(limited.body.balances).toHaveLength(2);
    expect(limited.body.next_offset).toBeDefined();
    const clamped = await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&limit=5000`);
    expect(clamped.status).toBe(200);
    expect(clamped.body.next_offset).toBeUndefined();
    const ink = await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=mainnet,57073`);
    expect(ink.cu).toBe("4");
    const warned = await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1,999999`);
    expect(warned.cu).toBe("1");
    expect(warned.body.warnings).toEqual([
      expect.objectContaining({ code: "UNSUPPORTED_CHAIN_IDS", chain_ids: [999999] }),
    ]);
  });

  it("error: every bad parameter is a 400 that says which", async () => {
    const wallet = chain.wallets.whale!;
    const cases: Array<[string, string]> = [
      ["chain_ids=ethereum", "INVALID_CHAIN_IDS"],
      ["chain_ids=1,,8453", "INVALID_CHAIN_IDS"],
      ["filters=erc721", "INVALID_FILTERS"],
      ["metadata=logo,colour", "INVALID_METADATA"],
      ["exclude_spam_tokens=maybe", "INVALID_BOOLEAN"],
      ["historical_prices=1,2,3,4", "TOO_MANY_HISTORICAL_PRICES"],
      ["historical_prices=1.5", "INVALID_HISTORICAL_PRICES"],
      ["historical_prices=0", "INVALID_HISTORICAL_PRICES"],
      ["limit=0", "INVALID_LIMIT"],
      ["limit=ten", "INVALID_LIMIT"],
      ["offset=forged.cursor", "INVALID_OFFSET"],
    ];
    for (const [query, code] of cases) {
      const res = await env.get(`/v1/evm/balances/${wallet}?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get("x-compute-units")).toBe("0");
      expect(await res.json(), query).toMatchObject({ code });
    }
    expect((await env.get("/v1/evm/balances/0x1234")).status).toBe(400);
    // A cursor of another wallet is refused.
    const page = await json(`/v1/evm/balances/${wallet}?chain_ids=1&limit=1`);
    const other = await env.get(
      `/v1/evm/balances/${chain.wallets.paging}?chain_ids=1&limit=1&offset=${page.body.next_offset}`,
    );
    expect(await other.json()).toMatchObject({ code: "INVALID_OFFSET" });
  });

  it("behavior: historical prices follow the pools' state at the block at each offset", async () => {
    const now = Math.floor(Date.now() / 1000);
    const { body } = await json(
      `/v1/evm/balances/${chain.wallets.whale}?chain_ids=1&historical_prices=720,24,1`,
    );
    const weth = entryOf(body, token("WETH"))!;
    expect(weth.historical_prices?.map((p) => p.offset_hours)).toEqual([720, 24, 1]);
    for (const point of weth.historical_prices!) {
      const block = await blockAtOrBefore(client, now - point.offset_hours * 3600);
      const reference = await deepest(client, chain, stablePools("WETH"), token("WETH"), 1, block);
      expect(point.price_usd / reference.priceUsd, `${point.offset_hours} h`).toBeCloseTo(1, 6);
    }
    const prices = weth.historical_prices!.map((p) => p.price_usd);
    expect(new Set(prices).size).toBe(3);
  });

  it("behavior: paging the 1,200-token wallet while blocks are mined returns every token exactly once", async () => {
    const wallet = devnetWallet(chain, env.devnet.manifest.accounts[0]!.private_key);
    const seen: Array<string> = [];
    let offset: string | undefined;
    let pages = 0;
    do {
      const { status, body } = await json(
        `/v1/evm/balances/${chain.wallets.paging}?chain_ids=1&limit=100${offset ? `&offset=${offset}` : ""}`,
      );
      expect(status).toBe(200);
      seen.push(...body.balances.map((b) => b.address));
      offset = body.next_offset;
      pages++;
      // A new block between pages must not shift the list.
      await wallet.sendTransaction({ to: chain.wallets.paging as Hex, value: 1n });
    } while (offset !== undefined);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(chain.paging_token_count);
    expect(pages).toBeGreaterThanOrEqual(Math.ceil(chain.paging_token_count / 100));
  });

  it("behavior: a transfer is visible in the next request once its block is indexed", async () => {
    const wallet = devnetWallet(chain, env.devnet.manifest.accounts[1]!.private_key);
    expect(wallet.account.address.toLowerCase()).toBe(chain.wallets.whale!.toLowerCase());
    const empty = chain.wallets.empty!;
    const before = (await json(`/v1/evm/balances/${empty}?chain_ids=1`)).body;
    expect(entryOf(before, token("USDC"))).toBeUndefined();
    await wallet.writeContract({
      address: token("USDC") as Hex,
      abi: erc20,
      functionName: "transfer",
      args: [empty as Hex, 1_234_567n],
    });
    await eventually(
      async () =>
        entryOf((await json(`/v1/evm/balances/${empty}?chain_ids=1`)).body, token("USDC"))?.amount ===
        "1234567",
      30_000,
      "transfer visible",
    );
  });

  it("default: the single-token route answers one token on exactly one chain, with amount 0 when none is held", async () => {
    const res = await env.get(`/v1/evm/balances/${chain.wallets.empty}/token/${token("DAI")}?chain_ids=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-compute-units")).toBe("1");
    const body = (await res.json()) as Body;
    expect(body.balances).toEqual([
      expect.objectContaining({
        address: token("DAI"),
        amount: "0",
        symbol: "DAI",
        decimals: 18,
        price_usd: 1,
      }),
    ]);
    const native = (await (
      await env.get(`/v1/evm/balances/${chain.wallets.whale}/token/native?chain_ids=1&historical_prices=24`)
    ).json()) as Body;
    expect(native.balances[0]).toMatchObject({ address: "native", symbol: "ETH" });
    expect(native.balances[0]?.historical_prices).toHaveLength(1);
    for (const query of ["", "?chain_ids=1,8453", "?chain_ids=mainnet", "?chain_ids=ethereum"]) {
      const bad = await env.get(`/v1/evm/balances/${chain.wallets.whale}/token/native${query}`);
      expect(bad.status, query).toBe(400);
      expect(await bad.json()).toMatchObject({ code: "INVALID_CHAIN_IDS" });
    }
  });

  it("behavior: the same request over NATS request/reply gets the same answer", async () => {
    const nc = await env.nats.connectAs("gateway");
    const h = natsHeaders();
    h.set("X-Svc-Api-Key", env.key);
    const reply = await nc.request(
      "svc.v1.evm.balances.get",
      JSON.stringify({ params: { address: chain.wallets.whale }, query: { chain_ids: "1" } }),
      { headers: h, timeout: 10_000 },
    );
    expect(reply.headers?.get("Svc-Status")).toBe("200");
    expect(reply.headers?.get("X-Compute-Units")).toBe("1");
    const overNats = reply.json<Body>();
    const overHttp = (await json(`/v1/evm/balances/${chain.wallets.whale}?chain_ids=1`)).body;
    expect(overNats.balances).toEqual(overHttp.balances);
  });
});
