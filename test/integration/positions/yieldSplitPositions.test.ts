import { headers as natsHeaders } from "@nats-io/transport-node";
import { type Address, createTestClient, formatUnits, http, parseAbi } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainClient } from "../../../src/devnet/ChainClient.js";
import type { ManifestPendle } from "../../../src/devnet/DevnetManifest.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";
import { openTxBatch } from "../../../src/devnet/lending/txBatch.js";
import { pendleSyAbi, pendleYieldTokenAbi } from "../../../src/devnet/pendle/pendleAbis.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { closeTo } from "./lendingReference.js";

/**
 * Pendle V2 principal, yield and LP tokens of the devnet (docs/devnet.md, "Pendle") through the
 * positions endpoint: balances equal to the tokens' own `balanceOf` at the block the service read, a
 * PT worth exactly one asset after its expiry and its market's implied rate before it, a YT worth
 * the rest with its interest equal to what Pendle's own `redeemDueInterestAndRewards` would pay, the
 * same answer over NATS, and a reorg taking a mint away.
 */

interface Entry {
  type: string;
  chain_id: number;
  protocol: string;
  token: string;
  token_type: "Principal" | "Yield" | "LP";
  balance: string;
  token_decimals: number;
  market: string | null;
  asset: string;
  asset_symbol: string | null;
  asset_decimals: number;
  calculated_balance: number;
  price_in_usd?: number;
  usd_value?: number;
  expiry: number;
  expired: boolean;
  implied_apy?: number;
  asset_rewards?: number;
  logo: string | null;
}
interface Body {
  positions: Entry[];
  aggregations: { total_usd_value: number; total_by_chain: Record<string, number> };
}

const PENDLE_CHAINS = [1, 8453, 10];
const YEAR = 365 * 86_400;
const abi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function exchangeRate() view returns (uint256)",
  "function _storage() view returns (int128 totalPt, int128 totalSy, uint96 lastLnImpliedRate, uint16, uint16, uint16)",
  "function redeemDueInterestAndRewards(address user, bool redeemInterest, bool redeemRewards) returns (uint256 interestOut, uint256[] rewardsOut)",
]);

let env: DevnetService;
const { chainOf, clientOf } = devnetChains(() => env);
const pendleOf = (id: number): ManifestPendle => chainOf(id).pendle!;
const expiryOf = (id: number, purpose: "past" | "future") =>
  pendleOf(id).expiries.find((e) => e.purpose === purpose)!;

const fetchPositions = async (wallet: string, chainIds: ReadonlyArray<number>): Promise<Body> => {
  const res = await env.get(`/beta/evm/defi/positions/${wallet}?chain_ids=${chainIds.join(",")}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Body;
};

/** The answer and the head of every chain it was read at (nothing is mined meanwhile). */
const answerAtHead = async (wallet: string, chainIds: ReadonlyArray<number>) => {
  const heads = new Map<number, bigint>();
  for (const id of chainIds) heads.set(id, await clientOf(id).getBlockNumber());
  const body = await fetchPositions(wallet, chainIds);
  for (const id of chainIds)
    expect(await clientOf(id).getBlockNumber(), "nothing mined meanwhile").toBe(heads.get(id));
  return { body, heads };
};

const read = <T>(id: number, address: string, functionName: string, args: unknown[], blockNumber: bigint) =>
  clientOf(id).readContract({
    address: address as Address,
    abi,
    functionName,
    args,
    blockNumber,
  } as never) as Promise<T>;

const entryOf = (body: Body, id: number, token: string) =>
  body.positions.find((e) => e.chain_id === id && e.type === "YieldSplit" && e.token === token.toLowerCase());

beforeAll(async () => {
  env = await startDevnetService({ requestTimeoutMs: 60_000 });
  // Under full CPU load a chain's index can still be applying the seeded history: wait until every
  // chain shows the holder's five tokens (PT and YT of two expiries, and LP).
  const holder = chainOf(1).wallets.pendle_holder!;
  await eventually(
    async () => {
      const body = await fetchPositions(holder, PENDLE_CHAINS);
      return PENDLE_CHAINS.every(
        (id) => body.positions.filter((e) => e.chain_id === id && e.type === "YieldSplit").length === 5,
      );
    },
    120_000,
    "every chain's Pendle tokens indexed",
  );
}, 900_000);

afterAll(async () => {
  await env?.stop();
});

describe("yield-splitting positions on the devnet", () => {
  it("default: the holder gets PT and YT of both expiries and the market's LP on three chains, each balance equal to balanceOf at the block read", async () => {
    const holder = chainOf(1).wallets.pendle_holder!;
    const { body, heads } = await answerAtHead(holder, PENDLE_CHAINS);
    for (const id of PENDLE_CHAINS) {
      const pendle = pendleOf(id);
      const held = [
        ...pendle.expiries.flatMap((e) => [
          { token: e.pt, type: "Principal", market: e.market },
          { token: e.yt, type: "Yield", market: e.market },
        ]),
        ...pendle.expiries
          .filter((e) => e.market !== null)
          .map((e) => ({ token: e.market!, type: "LP", market: e.market })),
      ];
      for (const { token, type, market } of held) {
        const what = `${chainOf(id).name} ${type} ${token}`;
        const entry = entryOf(body, id, token);
        expect(entry, what).toBeDefined();
        const balance = await read<bigint>(id, token, "balanceOf", [holder], heads.get(id)!);
        expect(balance, what).toBeGreaterThan(0n);
        expect(BigInt(entry!.balance), what).toBe(balance);
        expect(entry!.calculated_balance, what).toBe(Number(formatUnits(balance, entry!.token_decimals)));
        expect(entry!.token_type, what).toBe(type);
        expect(entry!.market, what).toBe(market?.toLowerCase() ?? null);
        expect(entry!.asset, what).toBe(pendle.asset.toLowerCase());
        expect(entry!.asset_symbol, what).toBe("USDC");
        expect(entry!.protocol, what).toBe(pendle.protocol);
        expect(entry!.logo, what).toContain(pendle.asset.toLowerCase());
      }
      expect(body.positions.filter((e) => e.chain_id === id && e.type === "YieldSplit")).toHaveLength(
        held.length,
      );
      const chainSum = body.positions
        .filter((e) => e.chain_id === id)
        .reduce((s, e) => s + (e.usd_value ?? 0), 0);
      expect(closeTo(body.aggregations.total_by_chain[String(id)]!, chainSum, 9), `${id} aggregation`).toBe(
        true,
      );
    }
    expect(body.aggregations.total_usd_value).toBeGreaterThan(0);
  });

  it("behavior: after expiry a PT is worth one asset and its YT nothing; before it the PT is discounted at the market's implied rate and the YT worth the rest", async () => {
    const holder = chainOf(8453).wallets.pendle_holder!;
    const { body, heads } = await answerAtHead(holder, [8453]);
    const block = await clientOf(8453).getBlock({ blockNumber: heads.get(8453)! });
    const past = expiryOf(8453, "past");
    const future = expiryOf(8453, "future");
    expect(past.expiry).toBeLessThan(Number(block.timestamp));
    expect(future.expiry).toBeGreaterThan(Number(block.timestamp));

    const pastPt = entryOf(body, 8453, past.pt)!;
    expect(pastPt.expired).toBe(true);
    // USDC is a configured stablecoin: one PT redeems for exactly one dollar's worth.
    expect(pastPt.price_in_usd).toBe(1);
    expect(pastPt.usd_value).toBeCloseTo(1_000, 6);
    expect(entryOf(body, 8453, past.yt)!.price_in_usd).toBe(0);

    const [, , lnImpliedRate] = await read<[bigint, bigint, bigint]>(
      8453,
      future.market!,
      "_storage",
      [],
      heads.get(8453)!,
    );
    const expected = Math.exp(
      (-Number(lnImpliedRate) / 1e18) * ((future.expiry - Number(block.timestamp)) / YEAR),
    );
    const futurePt = entryOf(body, 8453, future.pt)!;
    expect(futurePt.expired).toBe(false);
    expect(lnImpliedRate).toBeGreaterThan(0n);
    expect(closeTo(futurePt.price_in_usd!, expected, 12), `${futurePt.price_in_usd} vs ${expected}`).toBe(
      true,
    );
    expect(futurePt.price_in_usd!).toBeLessThan(1);
    expect(futurePt.implied_apy!).toBeCloseTo(Math.expm1(Number(lnImpliedRate) / 1e18), 12);
    const futureYt = entryOf(body, 8453, future.yt)!;
    expect(closeTo(futureYt.price_in_usd!, 1 - expected, 9)).toBe(true);
  });

  it("behavior: a YT's accrued interest equals what redeemDueInterestAndRewards would pay, and counts in its value", async () => {
    const holder = chainOf(10).wallets.pendle_holder! as Address;
    const { body, heads } = await answerAtHead(holder, [10]);
    const block = heads.get(10)!;
    const pendle = pendleOf(10);
    const rate = await read<bigint>(10, pendle.sy, "exchangeRate", [], block);
    for (const { yt, purpose } of pendle.expiries) {
      const entry = entryOf(body, 10, yt)!;
      const { result } = await clientOf(10).simulateContract({
        address: yt as Address,
        abi,
        functionName: "redeemDueInterestAndRewards",
        args: [holder, true, false],
        account: holder,
        blockNumber: block,
      });
      const interestAsset = Number(formatUnits((result[0] * rate) / 10n ** 18n, entry.asset_decimals));
      // The vault grew 7.7 % after the split: 1,000 USDC of YT earned about 77 USDC of interest.
      expect(interestAsset, purpose).toBeGreaterThan(50);
      expect(
        closeTo(entry.asset_rewards!, interestAsset, 9),
        `${purpose}: ${entry.asset_rewards} vs ${interestAsset}`,
      ).toBe(true);
      expect(
        closeTo(entry.usd_value!, entry.calculated_balance * entry.price_in_usd! + interestAsset, 9),
        purpose,
      ).toBe(true);
    }
    const lp = entryOf(body, 10, expiryOf(10, "future").market!)!;
    expect(lp.price_in_usd!).toBeGreaterThan(0);
    expect(lp.usd_value!).toBeGreaterThan(0);
  });

  it("behavior: the same yield-splitting answer over NATS request/reply as over HTTP", async () => {
    const wallet = chainOf(1).wallets.pendle_holder!;
    const viaHttp = await fetchPositions(wallet, PENDLE_CHAINS);
    const nc = await env.nats.connectAs("gateway");
    const headers = natsHeaders();
    headers.set("X-Svc-Api-Key", env.key);
    const reply = await nc.request(
      "svc.beta.evm.defi.positions.get",
      JSON.stringify({
        params: { address: wallet },
        query: { chain_ids: PENDLE_CHAINS.join(",") },
        body: null,
      }),
      { timeout: 30_000, headers },
    );
    expect(reply.headers?.get("Svc-Status")).toBe("200");
    expect(reply.json()).toEqual(viaHttp);
  });

  it("behavior: a reorg that removes a PT and YT mint removes the positions", async () => {
    const chain = chainOf(1);
    const pendle = pendleOf(1);
    const future = expiryOf(1, "future");
    const newcomer = "0x00000000000000000000000000000000000c0ff2" as Address;
    const client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
    const test = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });
    const snapshot = await test.snapshot();
    const start = await clientOf(1).getBlockNumber();
    const deployer = roleAddress("deployer");
    const batch = await openTxBatch(client);
    await batch.send({
      from: deployer,
      address: pendle.sy as Address,
      abi: pendleSyAbi,
      functionName: "deposit",
      args: [future.yt as Address, pendle.asset as Address, 250_000_000n, 0n],
    });
    await batch.send({
      from: deployer,
      address: future.yt as Address,
      abi: pendleYieldTokenAbi,
      functionName: "mintPY",
      args: [newcomer, newcomer],
      gas: 3_000_000n,
    });
    await batch.mine();
    const reorganised = Number((await clientOf(1).getBlockNumber()) - start);
    const held = async () =>
      (await fetchPositions(newcomer, [1])).positions
        .filter((e) => e.type === "YieldSplit")
        .map((e) => e.token_type);
    await eventually(async () => (await held()).length === 2, 60_000, "the mint indexed");
    expect((await held()).sort()).toEqual(["Principal", "Yield"]);
    await test.revert({ id: snapshot });
    await test.mine({ blocks: reorganised + 2 });
    await eventually(async () => (await held()).length === 0, 60_000, "the reorganised mint gone");
  }, 180_000);
});
