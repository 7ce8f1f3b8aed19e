import { readFile } from "node:fs/promises";
import { Effect } from "effect";
import { MemoryLevel } from "memory-level";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readChainHoldings } from "../../../src/balances/readChainHoldings.js";
import { decodeChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import type { Db } from "../../../src/storage/Level.js";
import { directChainRpc } from "../../support/chainRpc.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";

interface Body {
  balances: Array<{ address: string; amount: string; symbol?: string; historical_prices?: Array<unknown> }>;
}

let env: DevnetService;
let chain: ManifestChain;

const token = (symbol: string) => chain.tokens[symbol]!.address.toLowerCase();
const tokenRoute = (wallet: string, tokenAddress: string, query = "chain_ids=1") =>
  env.get(`/v1/evm/balances/${wallet}/token/${tokenAddress}?${query}`);

beforeAll(async () => {
  env = await startDevnetService();
  chain = env.devnet.manifest.chains.find((c) => c.chain_id === 1)!;
});

afterAll(async () => {
  await env?.stop();
});

describe("odd but legitimate balances queries", () => {
  it("behavior: exclude_spam_tokens given bare or empty turns the filter on, as the original API did", async () => {
    const wallet = chain.wallets.whale!;
    const all = (await (await env.get(`/v1/evm/balances/${wallet}?chain_ids=1`)).json()) as Body;
    expect(all.balances.some((b) => b.address === token("SPAM"))).toBe(true);
    for (const flag of ["exclude_spam_tokens", "exclude_spam_tokens="]) {
      const res = await env.get(`/v1/evm/balances/${wallet}?chain_ids=1&${flag}`);
      expect(res.status, flag).toBe(200);
      const body = (await res.json()) as Body;
      expect(
        body.balances.some((b) => b.address === token("SPAM")),
        flag,
      ).toBe(false);
      expect(
        body.balances.some((b) => b.address === token("MKR")),
        flag,
      ).toBe(true);
    }
  });

  it("error: a repeated historical offset is a 400 on both balances routes, not two entries per offset", async () => {
    const wallet = chain.wallets.whale!;
    for (const path of [
      `/v1/evm/balances/${wallet}?chain_ids=1&`,
      `/v1/evm/balances/${wallet}/token/native?chain_ids=1&`,
    ]) {
      const res = await env.get(`${path}historical_prices=24,24`);
      expect(res.status, path).toBe(400);
      expect(res.headers.get("x-compute-units")).toBe("0");
      expect(await res.json()).toEqual({
        error: "historical_prices gives the offset 24 more than once; give each offset once.",
        code: "DUPLICATE_HISTORICAL_PRICES",
      });
    }
    const once = (await (
      await env.get(`/v1/evm/balances/${wallet}/token/native?chain_ids=1&historical_prices=24,1`)
    ).json()) as Body;
    expect(once.balances[0]?.historical_prices).toHaveLength(2);
  });
});

describe("the single-token route and contracts that are not ERC-20 tokens", () => {
  it("error: an ERC-721, an ERC-1155 and an address without code are 400s that say what they are", async () => {
    const whale = chain.wallets.whale!;
    const cases: Array<[string, string]> = [
      [chain.contracts.erc721_collectible!, "is an ERC-721 (NFT) contract, not an ERC-20 token,"],
      [chain.contracts.erc1155_multi_token!, "is an ERC-1155 (multi-token) contract, not an ERC-20 token,"],
      [
        chain.wallets.empty!,
        "does not answer the ERC-20 balanceOf(address) (no token contract there at the block read)",
      ],
    ];
    for (const [address, says] of cases) {
      const res = await tokenRoute(whale, address);
      expect(res.status, address).toBe(400);
      expect(res.headers.get("x-compute-units")).toBe("0");
      expect(await res.json()).toEqual({
        error: `token_address ${address.toLowerCase()} ${says} on chain 1; this route reads ERC-20 tokens and "native".`,
        code: "NOT_AN_ERC20_TOKEN",
      });
    }
  });

  it("default: ERC-20 tokens, held or not, and native still answer 200", async () => {
    const whale = chain.wallets.whale!;
    for (const [wallet, address, symbol] of [
      [whale, token("USDC"), "USDC"],
      [chain.wallets.empty!, token("DAI"), "DAI"],
      [whale, "native", "ETH"],
    ] as const) {
      const res = await tokenRoute(wallet, address);
      expect(res.status, symbol).toBe(200);
      expect(res.headers.get("x-compute-units")).toBe("1");
      expect(((await res.json()) as Body).balances).toEqual([expect.objectContaining({ address, symbol })]);
    }
  });

  it("behavior: telling an NFT contract from an ERC-20 adds no eth_call to the one balances read", async () => {
    const config = await Effect.runPromise(
      decodeChainsConfigFile(JSON.parse(await readFile(env.devnet.devnet.chainsConfigPath, "utf8"))),
    );
    const chainConfig = config.chains.find((c) => c.chain_id === 1)!;
    const methods: Array<string> = [];
    const { rpc: client, close } = directChainRpc(chain.rpc_url, {
      chainId: 1,
      onRequest: (request) => methods.push(request.method),
    });
    // An empty index: no pools to price from and no known metadata, so every read is visible here.
    const index = makeIndexReader(
      new MemoryLevel<string, unknown>({ valueEncoding: "json" }) as unknown as Db,
    );
    const block = { number: Number.parseInt(await client.request<string>("eth_blockNumber", []), 16) };
    methods.length = 0;
    const nft = chain.contracts.erc721_collectible!.toLowerCase();
    const read = await readChainHoldings(client, index, {
      chain: chainConfig,
      wallet: chain.wallets.whale!.toLowerCase(),
      block,
      tokens: [nft],
      keepZero: new Set([nft]),
      classify: nft,
    });
    expect(read.classified).toBe("erc721");
    expect(read.holdings.map((h) => h.address)).toEqual(["native"]);
    expect(methods).toEqual(["eth_call"]);
    await close();
  });
});
