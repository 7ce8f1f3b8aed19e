import { type Address, type Hex, type PublicClient, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManifestChain, ManifestPool } from "../../../src/devnet/DevnetManifest.js";
import { makePromiseSlots } from "../../../src/lib/promiseSlots.js";
import { blockAtOrBefore } from "../../support/blockAtOrBefore.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { devnetWallet } from "../../support/devnetWallet.js";
import { deepest } from "../../support/referencePrices.js";
import { eventually } from "../../support/serviceHarness.js";
import {
  type AnyPositionEntry,
  expectEntryAtBlock,
  manifestPositionKeys,
  positionKeys,
} from "../positions/entriesAtBlock.js";

/**
 * `block_number` on the devnet. Every seeded wallet's balances and positions, on every chain, at a
 * block of the seeded history (the last one a day before the seeded head, where prices differ
 * from the head's) equal direct reads at that block; a token and a position NFT given away after
 * the service started are still shown at a block before; and heights the service cannot answer
 * at are 400s that name the blocks it can.
 */

interface Entry {
  chain_id: number;
  address: string;
  amount: string;
  decimals?: number;
  price_usd?: number;
  value_usd?: number;
  historical_prices?: Array<{ offset_hours: number; price_usd: number }>;
}
interface BalancesBody {
  balances: Entry[];
  block_number?: number;
  block_time?: string;
  next_offset?: string;
  warnings?: Array<{ code: string }>;
}
interface PositionsBody {
  positions: Array<AnyPositionEntry & Record<string, unknown>>;
  block_number?: number;
  block_time?: string;
}

const CHAINS = [1, 8453, 10, 57073];
const DAY = 24 * 3600;
const erc20 = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function transfer(address, uint256) returns (bool)",
]);
const managerAbi = parseAbi(["function safeTransferFrom(address from, address to, uint256 tokenId)"]);
const MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11" as Address;

let env: DevnetService;
const { chainOf, clientOf } = devnetChains(() => env);
/** Each chain's block of the seeded history the answers are asked at, and its time. */
const past = new Map<number, { number: bigint; timestamp: number }>();

const getJson = async <B>(path: string) => {
  const res = await env.get(path);
  return { status: res.status, cu: res.headers.get("x-compute-units"), body: (await res.json()) as B };
};
const balancesAt = (wallet: string, id: number, query = "") =>
  getJson<BalancesBody>(`/v1/evm/balances/${wallet}?chain_ids=${id}${query}`);
const positionsAt = (wallet: string, id: number, query = "") =>
  getJson<PositionsBody>(`/beta/evm/defi/positions/${wallet}?chain_ids=${id}${query}`);
const atPast = (id: number) => `&block_number=${past.get(id)!.number}`;
const isoOf = (seconds: number) => new Date(seconds * 1000).toISOString();

/** Every seeded wallet of a chain, each once (roles may share an address). */
const walletsOf = (chain: ManifestChain) => [
  ...new Set(Object.values(chain.wallets).map((w) => w.toLowerCase())),
];

/** `wallet`'s balance of each token (and `native`) at `block`, read through viem's own multicall. */
const balancesOnChain = async (
  client: PublicClient,
  wallet: string,
  tokens: ReadonlyArray<string>,
  block: bigint,
) => {
  const reads = await client.multicall({
    contracts: tokens.map((token) => ({
      address: token as Address,
      abi: erc20,
      functionName: "balanceOf",
      args: [wallet as Address],
    })),
    blockNumber: block,
    multicallAddress: MULTICALL3,
    // The 1,200-token wallet in a few calls rather than a hundred.
    batchSize: 128 * 1024,
    allowFailure: true,
  });
  const amounts = new Map<string, bigint>(
    tokens.map((token, i) => [token, reads[i]!.status === "success" ? (reads[i]!.result as bigint) : 0n]),
  );
  amounts.set("native", await client.getBalance({ address: wallet as Address, blockNumber: block }));
  return amounts;
};

/** The chain's tokens a wallet may hold besides those an answer names: its listed tokens and its positions' tokens. */
const knownTokens = (chain: ManifestChain) => [
  ...Object.values(chain.tokens).map((t) => t.address.toLowerCase()),
  ...chain.vaults.map((v) => v.address.toLowerCase()),
  ...chain.lending_markets.flatMap((m) =>
    m.assets.flatMap((a) => [a.supply_token, a.debt_token].filter((t): t is string => t !== null)),
  ),
  ...(chain.pendle?.expiries.flatMap((e) => [e.pt, e.yt, ...(e.market === null ? [] : [e.market])]) ?? []),
  ...chain.pools.filter((p) => p.kind === "v2").map((p) => p.address!.toLowerCase()),
];

const stablePools = (chain: ManifestChain, token: string): ReadonlyArray<ManifestPool> => {
  const stables = new Set(
    Object.values(chain.tokens)
      .filter((t) => t.role === "stablecoin")
      .map((t) => t.address.toLowerCase()),
  );
  return chain.pools.filter((p) => {
    const [a, b] = [p.token0.toLowerCase(), p.token1.toLowerCase()];
    return (a === token && stables.has(b)) || (b === token && stables.has(a));
  });
};

/** WETH, UNI and WBTC in USD at `block`, from the pools' state as docs/pricing.md computes it. */
const referencePrices = async (chain: ManifestChain, block: bigint) => {
  const client = clientOf(chain.chain_id);
  const token = (symbol: string) => chain.tokens[symbol]!.address.toLowerCase();
  const weth = await deepest(client, chain, stablePools(chain, token("WETH")), token("WETH"), 1, block);
  const viaWeth = async (symbol: string, purpose: string) => {
    const pool = chain.pools.find((p) => p.purpose === purpose)!;
    return (await deepest(client, chain, [pool], token(symbol), weth.priceUsd, block)).priceUsd;
  };
  return new Map([
    [token("WETH"), weth.priceUsd],
    ["native", weth.priceUsd],
    [token("UNI"), await viaWeth("UNI", "v3_deep")],
    [token("WBTC"), await viaWeth("WBTC", "weth_hop_only")],
  ]);
};

/** Runs `task` for every item, a few at a time (each first request of a wallet starts its discovery). */
const forEach = async <T>(items: ReadonlyArray<T>, task: (item: T) => Promise<void>) => {
  const slots = makePromiseSlots(3);
  await Promise.all(items.map((item) => slots(() => task(item))));
};

beforeAll(async () => {
  env = await startDevnetService({ requestTimeoutMs: 60_000 });
  for (const id of CHAINS) {
    const chain = chainOf(id);
    const number = await blockAtOrBefore(clientOf(id), chain.seed_head_timestamp - DAY);
    const { timestamp } = await clientOf(id).getBlock({ blockNumber: number });
    past.set(id, { number, timestamp: Number(timestamp) });
  }
}, 900_000);

afterAll(async () => {
  await env?.stop();
});

describe("block_number", () => {
  it("default: every seeded wallet's balances at a block of the history equal balanceOf and getBalance there, priced as the pools stood then", async () => {
    for (const id of CHAINS) {
      const chain = chainOf(id);
      const client = clientOf(id);
      const { number, timestamp } = past.get(id)!;
      const reference = await referencePrices(chain, number);
      const atHead = await referencePrices(chain, await client.getBlockNumber());
      // The history moved these prices: an answer read at the head would fail the comparison.
      for (const [token, price] of reference)
        expect(Math.abs(atHead.get(token)! / price - 1), token).toBeGreaterThan(1e-6);
      const priceOf = new Map<string, number>();
      await forEach(walletsOf(chain), async (wallet) => {
        const { status, cu, body } = await balancesAt(wallet, id, atPast(id));
        expect(status, wallet).toBe(200);
        expect(cu).toBe("1");
        expect(body.block_number).toBe(Number(number));
        expect(body.block_time).toBe(isoOf(timestamp));
        const head = (await balancesAt(wallet, id)).body;
        const tokens = [
          ...new Set([...knownTokens(chain), ...[...head.balances, ...body.balances].map((e) => e.address)]),
        ];
        const onChain = await balancesOnChain(
          client,
          wallet,
          tokens.filter((t) => t !== "native"),
          number,
        );
        const answered = new Map(body.balances.map((e) => [e.address, e]));
        for (const [token, amount] of onChain) {
          const what = `${wallet} ${token} on ${id}`;
          // Everything held then is there, at its amount then; nothing else is.
          expect(answered.get(token)?.amount ?? "0", what).toBe(amount.toString());
        }
        for (const entry of body.balances) {
          expect(onChain.has(entry.address), `${entry.address} read`).toBe(true);
          if (entry.price_usd === undefined) continue;
          const expected = reference.get(entry.address);
          if (expected !== undefined)
            expect(entry.price_usd / expected, `${entry.address} price`).toBeCloseTo(1, 6);
          // One price per token at one block, whoever holds it.
          expect(priceOf.get(entry.address) ?? entry.price_usd, entry.address).toBe(entry.price_usd);
          priceOf.set(entry.address, entry.price_usd);
          expect(
            entry.value_usd! / ((Number(entry.amount) / 10 ** entry.decimals!) * entry.price_usd),
          ).toBeCloseTo(1, 9);
        }
      });
      expect(priceOf.size, `priced tokens on ${id}`).toBeGreaterThanOrEqual(4);
    }
  }, 900_000);

  it("default: every seeded wallet's positions at that block equal the contracts' own views there, priced as balances are then", async () => {
    for (const id of CHAINS) {
      const chain = chainOf(id);
      const { number, timestamp } = past.get(id)!;
      const prices = new Map<string, number>();
      for (const wallet of [chain.wallets.whale!, chain.wallets.deployer!])
        for (const entry of (await balancesAt(wallet, id, atPast(id))).body.balances)
          if (entry.price_usd !== undefined && entry.address !== "native")
            prices.set(entry.address, entry.price_usd);
      let checked = 0;
      await forEach(walletsOf(chain), async (wallet) => {
        const { status, cu, body } = await positionsAt(wallet, id, atPast(id));
        expect(status, wallet).toBe(200);
        expect(cu).toBe("2");
        expect(body.block_number).toBe(Number(number));
        expect(body.block_time).toBe(isoOf(timestamp));
        const at = { client: clientOf(id), chain, holder: wallet, block: number };
        for (const entry of body.positions) {
          await expectEntryAtBlock(at, entry);
          checked++;
          for (const [token, price] of [
            [entry.token0, entry.token0_price],
            [entry.token1, entry.token1_price],
          ] as Array<[string | undefined, number | undefined]>)
            if (token !== undefined && price !== undefined && prices.has(token))
              expect(price, `${entry.type} ${token} price`).toBe(prices.get(token));
        }
        const answered = positionKeys(chain, body.positions);
        for (const key of manifestPositionKeys(chain, wallet))
          expect(answered.has(key), `${wallet}: ${key} on ${id}`).toBe(true);
      });
      if (id !== 57073) expect(checked, `positions checked on ${id}`).toBeGreaterThan(20);
    }
  }, 900_000);

  it("behavior: a token and a position NFT given away since are shown at a block before, and the receiver had neither then", async () => {
    const chain = chainOf(1);
    const client = clientOf(1);
    const keyOf = (address: string) =>
      env.devnet.manifest.accounts.find((a) => a.address.toLowerCase() === address.toLowerCase())!
        .private_key;
    const whale = chain.wallets.whale!;
    const holder = chain.wallets.liquidity!;
    const receiver = chain.wallets.empty!;
    const uni = chain.tokens.UNI!.address.toLowerCase();
    const nft = chain.liquidity_positions.find((p) => p.owner === holder && p.purpose === "in_range")!;
    const tokenId = BigInt(nft.token_id!);
    const hasNft = (body: PositionsBody) =>
      body.positions.some((e) => e.positions?.some((element) => BigInt(element.token_id) === tokenId));
    const uniOf = (body: BalancesBody) => body.balances.find((e) => e.address === uni)?.amount;

    // Asked about before, as a client would: the service has found what each holds.
    expect(hasNft((await positionsAt(holder, 1)).body)).toBe(true);
    expect(uniOf((await balancesAt(whale, 1)).body)).toBeDefined();
    const before = await client.getBlockNumber();
    await eventually(
      async () => (await balancesAt(whale, 1, `&block_number=${before}`)).status === 200,
      30_000,
      "indexed",
    );
    const held = await client.readContract({
      address: uni as Hex,
      abi: erc20,
      functionName: "balanceOf",
      args: [whale as Address],
    });
    expect(held).toBeGreaterThan(0n);
    await devnetWallet(chain, keyOf(whale)).writeContract({
      address: uni as Hex,
      abi: erc20,
      functionName: "transfer",
      args: [receiver as Address, held],
    });
    await devnetWallet(chain, keyOf(holder)).writeContract({
      address: nft.position_manager as Hex,
      abi: managerAbi,
      functionName: "safeTransferFrom",
      args: [holder as Address, receiver as Address, tokenId],
    });
    await eventually(
      async () =>
        !hasNft((await positionsAt(holder, 1)).body) &&
        uniOf((await balancesAt(whale, 1)).body) === undefined,
      60_000,
      "the transfers indexed",
    );

    const then = `&block_number=${before}`;
    expect(uniOf((await balancesAt(whale, 1, then)).body)).toBe(held.toString());
    expect(hasNft((await positionsAt(holder, 1, then)).body)).toBe(true);
    expect(uniOf((await balancesAt(receiver, 1, then)).body)).toBeUndefined();
    expect(hasNft((await positionsAt(receiver, 1, then)).body)).toBe(false);
    // At the head, the other way round.
    expect(uniOf((await balancesAt(receiver, 1)).body)).toBe(held.toString());
    expect(hasNft((await positionsAt(receiver, 1)).body)).toBe(true);
    // The single-token route too.
    const single = await getJson<BalancesBody>(`/v1/evm/balances/${whale}/token/${uni}?chain_ids=1${then}`);
    expect(single.cu).toBe("1");
    expect(single.body).toMatchObject({
      block_number: Number(before),
      balances: [{ address: uni, amount: held.toString() }],
    });
  }, 300_000);

  it("behavior: historical_prices count back from the block's time, and cursors page through that block only", async () => {
    const chain = chainOf(1);
    const { timestamp } = past.get(1)!;
    const weth = chain.tokens.WETH!.address.toLowerCase();
    const { body } = await balancesAt(chain.wallets.whale!, 1, `${atPast(1)}&historical_prices=24`);
    const point = body.balances.find((e) => e.address === weth)!.historical_prices![0]!;
    const dayBefore = await blockAtOrBefore(clientOf(1), timestamp - DAY);
    expect(point.price_usd / (await referencePrices(chain, dayBefore)).get(weth)!).toBeCloseTo(1, 6);

    // The paging wallet's 1,200 tokens are minted after the history: page at the seeded head, now past.
    const wallet = chain.wallets.paging!;
    const seeded = chain.seed_head_block;
    const at = `&block_number=${seeded}`;
    const pageAll = async (limit: number) => {
      const seen: Array<string> = [];
      let offset: string | undefined;
      do {
        const page = await balancesAt(wallet, 1, `${at}&limit=${limit}${offset ? `&offset=${offset}` : ""}`);
        expect(page.body.block_number).toBe(seeded);
        seen.push(...page.body.balances.map((e) => e.address));
        offset = page.body.next_offset;
      } while (offset !== undefined);
      return seen;
    };
    const byThousand = await pageAll(1000);
    expect(new Set(byThousand).size).toBe(byThousand.length);
    expect(byThousand.length).toBeGreaterThanOrEqual(chain.paging_token_count);
    expect(await pageAll(250)).toEqual(byThousand);
    // A cursor is for its block: not for another, nor for the head.
    const first = await balancesAt(wallet, 1, `${at}&limit=250`);
    for (const other of [`&block_number=${seeded - 1}`, ""]) {
      const replay = await env.get(
        `/v1/evm/balances/${wallet}?chain_ids=1&limit=250&offset=${first.body.next_offset}${other}`,
      );
      expect(replay.status, other).toBe(400);
      expect(await replay.json()).toMatchObject({ code: "INVALID_OFFSET" });
    }
  }, 300_000);

  it("error: heights and chains the service cannot answer at are 400s that say which it can, and cost nothing", async () => {
    const wallet = chainOf(1).wallets.whale!;
    const health = (await (await fetch(`${env.service.baseUrl}/healthz`)).json()) as {
      chains: Array<{ chain_id: number; indexed_block: number }>;
    };
    const head = health.chains.find((c) => c.chain_id === 1)!.indexed_block;
    const chains = (await (await env.get("/v1/evm/supported-chains")).json()) as {
      chains: Array<{ chain_id: number; historical_prices: { state_from_block: number } }>;
    };
    const stateFrom = chains.chains.find((c) => c.chain_id === 1)!.historical_prices.state_from_block;
    expect(stateFrom).toBeGreaterThan(1);
    const cases: Array<[string, string, string | undefined]> = [
      [`chain_ids=1&block_number=${head + 1000}`, "BLOCK_NUMBER_AHEAD", `ask for block ${head} or lower`],
      [`chain_ids=1&block_number=1`, "BLOCK_STATE_UNAVAILABLE", `keep state from block ${stateFrom} on`],
      [
        `chain_ids=1&block_number=${stateFrom - 1}`,
        "BLOCK_STATE_UNAVAILABLE",
        `ask for block ${stateFrom} or later`,
      ],
      ["chain_ids=1&block_number=0x10", "INVALID_BLOCK_NUMBER", "give 16 for 0x10"],
      ["chain_ids=1&block_number=-5", "INVALID_BLOCK_NUMBER", "cannot be negative"],
      ["chain_ids=1&block_number=1.5", "INVALID_BLOCK_NUMBER", undefined],
      [`chain_ids=1&block_number=${"9".repeat(80)}`, "INVALID_BLOCK_NUMBER", "higher than any chain"],
      ["chain_ids=1&block_number=", "INVALID_BLOCK_NUMBER", undefined],
      ["chain_ids=1,8453&block_number=600", "BLOCK_NUMBER_NEEDS_ONE_CHAIN", "it names 2: 1, 8453"],
      ["chain_ids=mainnet&block_number=600", "BLOCK_NUMBER_NEEDS_ONE_CHAIN", undefined],
      ["block_number=600", "BLOCK_NUMBER_NEEDS_ONE_CHAIN", "without chain_ids"],
    ];
    for (const [query, code, says] of cases) {
      for (const path of [`/v1/evm/balances/${wallet}`, `/beta/evm/defi/positions/${wallet}`]) {
        const res = await env.get(`${path}?${query}`);
        expect(res.status, `${path}?${query}`).toBe(400);
        expect(res.headers.get("x-compute-units")).toBe("0");
        const error = (await res.json()) as { code: string; error: string };
        expect(error.code, query).toBe(code);
        if (says !== undefined) expect(error.error, query).toContain(says);
      }
    }
    const token = await env.get(`/v1/evm/balances/${wallet}/token/native?chain_ids=1&block_number=1`);
    expect(await token.json()).toMatchObject({ code: "BLOCK_STATE_UNAVAILABLE" });
    // One chain the endpoint does not serve: its warning and no entries, as without block_number.
    const unsupported = await balancesAt(wallet, 999_999, "&block_number=5");
    expect(unsupported.status).toBe(200);
    expect(unsupported.body.balances).toEqual([]);
    expect(unsupported.body.warnings).toEqual([expect.objectContaining({ code: "UNSUPPORTED_CHAIN_IDS" })]);
    expect(unsupported.body.block_number).toBeUndefined();
    // The head itself is a height like any other, and names itself.
    expect((await balancesAt(wallet, 1, `&block_number=${head}`)).body.block_number).toBe(head);
  }, 300_000);
});
