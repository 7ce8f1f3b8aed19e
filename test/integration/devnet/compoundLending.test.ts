import { readFile } from "node:fs/promises";
import { type Address, parseEventLogs } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManifestChain, ManifestLendingPosition } from "../../../src/devnet/DevnetManifest.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import {
  cometAbi,
  cTokenOf,
  ctokenAbi,
  marketOf,
  marketsOf,
  positionsOf,
  ratio,
  symbolOf,
  withLending,
} from "./lendingReads.js";
import { clientFor } from "./positionReads.js";

let env: TestDevnet;

// A first seed on a busy 2-core machine can take longer than the default hook timeout.
beforeAll(async () => {
  env = await startTestDevnet();
}, 600_000);

afterAll(async () => {
  await env?.stop();
});

/** The lending seed's wallets, and `every_type`, which holds one position of every type (docs/devnet.md). */
const PURPOSES = ["supplier", "borrower", "every_market", "debt_only", "liquidated", "every_type"];
const E18 = 10n ** 18n;

const read = (chain: ManifestChain) => {
  const client = clientFor(chain);
  return {
    client,
    ctoken: <T>(address: string, functionName: string, args: readonly unknown[] = [], blockNumber?: bigint) =>
      client.readContract({
        address: address as Address,
        abi: ctokenAbi,
        functionName,
        args,
        blockNumber,
      } as never) as Promise<T>,
    comet: <T>(address: string, functionName: string, args: readonly unknown[] = [], blockNumber?: bigint) =>
      client.readContract({
        address: address as Address,
        abi: cometAbi,
        functionName,
        args,
        blockNumber,
      } as never) as Promise<T>,
  };
};

const ofPurpose = (positions: ManifestLendingPosition[], purpose: string) =>
  positions.filter((p) => p.purpose === purpose);

describe("devnet cToken and Comet markets", () => {
  it("default: ethereum has CompoundV2, base and optimism the fork ForkLend, all three CompoundV3; every wallet purpose is in each", () => {
    const chains = withLending(env.manifest);
    expect(chains.map((c) => c.chain_id)).toEqual([1, 8453, 10]);
    for (const chain of chains) {
      expect(marketsOf(chain, "ctoken").map((m) => m.protocol)).toEqual([
        chain.chain_id === 1 ? "CompoundV2" : "ForkLend",
      ]);
      expect(marketsOf(chain, "comet").map((m) => m.protocol)).toEqual(["CompoundV3"]);
      for (const kind of ["ctoken", "comet"] as const) {
        const purposes = new Set(positionsOf(chain, kind).map((p) => p.purpose));
        expect([...purposes].sort(), `${chain.name} ${kind}`).toEqual([...PURPOSES].sort());
      }
      for (const p of chain.lending_positions.filter((p) => p.kind === "ctoken" || p.kind === "comet"))
        expect(chain.wallets[p.wallet], p.wallet).toBe(p.owner);
    }
    expect(env.manifest.chains.find((c) => c.chain_id === 57073)?.lending_markets).toEqual([]);
  });

  it("behavior: each comptroller lists the manifest's cTokens over their underlyings, priced by its oracle at the DEX opening prices", async () => {
    const usd = { WETH: 3_000, USDC: 1, WBTC: 60_000, UNI: 10 } as Record<string, number>;
    for (const chain of withLending(env.manifest)) {
      const r = read(chain);
      for (const market of marketsOf(chain, "ctoken")) {
        const listed = await r.ctoken<Address[]>(market.address, "getAllMarkets");
        expect(listed.map((a) => a.toLowerCase())).toEqual(market.assets.map((a) => a.supply_token));
        const oracle = await r.ctoken<Address>(market.address, "oracle");
        expect(oracle.toLowerCase()).toBe(market.contracts.oracle);
        for (const asset of market.assets) {
          const cToken = asset.supply_token as string;
          expect((await r.ctoken<Address>(cToken, "underlying")).toLowerCase()).toBe(asset.asset);
          expect((await r.ctoken<Address>(cToken, "comptroller")).toLowerCase()).toBe(market.address);
          const decimals = chain.tokens[asset.symbol]!.decimals;
          const price = await r.ctoken<bigint>(oracle, "getUnderlyingPrice", [cToken]);
          expect(price, asset.symbol).toBe(BigInt(usd[asset.symbol]!) * 10n ** BigInt(36 - decimals));
        }
      }
    }
  });

  it("behavior: every cToken position holds cTokens or owes the underlying as its side says; exchange rates of borrowed markets grew", async () => {
    for (const chain of withLending(env.manifest)) {
      const r = read(chain);
      const positions = positionsOf(chain, "ctoken");
      for (const p of positions) {
        const cToken = cTokenOf(chain, p);
        const label = `${chain.name} ${p.wallet} ${p.side} ${symbolOf(chain, p.asset)}`;
        const balance = await r.ctoken<bigint>(cToken, "balanceOf", [p.owner]);
        const debt = await r.ctoken<bigint>(cToken, "borrowBalanceStored", [p.owner]);
        if (p.side === "supply") expect(balance, label).toBeGreaterThan(0n);
        else expect(debt, label).toBeGreaterThan(0n);
      }
      // The supplier only supplies: no debt anywhere, and its cTokens are not collateral.
      for (const p of ofPurpose(positions, "supplier")) {
        expect(await r.ctoken<bigint>(cTokenOf(chain, p), "borrowBalanceStored", [p.owner])).toBe(0n);
        expect(await r.ctoken<Address[]>(p.market, "getAssetsIn", [p.owner])).toEqual([]);
      }
      // Debt only: nothing supplied in the market it borrows from.
      for (const p of ofPurpose(positions, "debt_only").filter((p) => p.side === "debt"))
        expect(await r.ctoken<bigint>(cTokenOf(chain, p), "balanceOf", [p.owner])).toBe(0n);
      // lending_all is in every market of the deployment.
      const everyMarket = new Set(ofPurpose(positions, "every_market").map((p) => p.asset));
      expect([...everyMarket].sort()).toEqual(
        marketOf(chain, positions[0]!)
          .assets.map((a) => a.asset)
          .sort(),
      );
      const borrowed = new Set(positions.filter((p) => p.side === "debt").map((p) => cTokenOf(chain, p)));
      for (const cToken of borrowed) {
        const decimals =
          chain.tokens[symbolOf(chain, (await r.ctoken<Address>(cToken, "underlying")).toLowerCase())]!;
        const initial = 2n * 10n ** BigInt(decimals.decimals + 8);
        expect(await r.ctoken<bigint>(cToken, "exchangeRateStored")).toBeGreaterThan(initial);
      }
    }
  });

  it("behavior: every Comet position reads on the chain: base supply, base debt and collateral per asset", async () => {
    for (const chain of withLending(env.manifest)) {
      const r = read(chain);
      const positions = positionsOf(chain, "comet");
      for (const market of marketsOf(chain, "comet")) {
        const base = market.assets.find((a) => a.role === "base")!;
        expect((await r.comet<Address>(market.address, "baseToken")).toLowerCase()).toBe(base.asset);
        const collateral = market.assets.filter((a) => a.role === "collateral").map((a) => a.asset);
        expect(await r.comet<number>(market.address, "numAssets")).toBe(collateral.length);
        for (const [i, asset] of collateral.entries()) {
          const info = await r.comet<{ asset: Address; priceFeed: Address }>(market.address, "getAssetInfo", [
            i,
          ]);
          expect(info.asset.toLowerCase()).toBe(asset);
          const symbol = symbolOf(chain, asset).toLowerCase();
          expect(info.priceFeed.toLowerCase()).toBe(market.contracts[`price_feed_${symbol}`]);
        }
      }
      for (const p of positions) {
        const label = `${chain.name} ${p.wallet} ${p.side} ${symbolOf(chain, p.asset)}`;
        const supplied = await r.comet<bigint>(p.market, "balanceOf", [p.owner]);
        const owed = await r.comet<bigint>(p.market, "borrowBalanceOf", [p.owner]);
        if (p.side === "supply") expect([supplied > 0n, owed], label).toEqual([true, 0n]);
        if (p.side === "debt") expect([supplied, owed > 0n], label).toEqual([0n, true]);
        if (p.side === "collateral")
          expect(
            await r.comet<bigint>(p.market, "collateralBalanceOf", [p.owner, p.asset]),
            label,
          ).toBeGreaterThan(0n);
      }
      const everyMarket = ofPurpose(positions, "every_market").map(
        (p) => `${p.side} ${symbolOf(chain, p.asset)}`,
      );
      expect(everyMarket.sort()).toEqual(["collateral WBTC", "collateral WETH", "debt USDC"]);
    }
  });

  it("behavior: the borrower's health is 1.2: cToken liquidity over debt, Comet collateral at its liquidation factor over debt", async () => {
    for (const chain of withLending(env.manifest)) {
      const r = read(chain);
      for (const market of marketsOf(chain, "ctoken")) {
        const debts = positionsOf(chain, "ctoken").filter(
          (p) => p.purpose === "borrower" && p.side === "debt",
        );
        const owner = debts[0]!.owner;
        const oracle = market.contracts.oracle!;
        let debtValue = 0n;
        for (const p of debts) {
          const cToken = cTokenOf(chain, p);
          const owed = await r.ctoken<bigint>(cToken, "borrowBalanceStored", [owner]);
          debtValue += (owed * (await r.ctoken<bigint>(oracle, "getUnderlyingPrice", [cToken]))) / E18;
        }
        const [error, liquidity, shortfall] = await r.ctoken<[bigint, bigint, bigint]>(
          market.address,
          "getAccountLiquidity",
          [owner],
        );
        expect([error, shortfall]).toEqual([0n, 0n]);
        expect(ratio(liquidity + debtValue, debtValue), chain.name).toBeCloseTo(1.2, 3);
      }
      for (const market of marketsOf(chain, "comet")) {
        const owner = positionsOf(chain, "comet").find((p) => p.purpose === "borrower")!.owner;
        const scale = await r.comet<bigint>(market.address, "baseScale");
        const basePrice = await r.comet<bigint>(market.address, "getPrice", [
          await r.comet<Address>(market.address, "baseTokenPriceFeed"),
        ]);
        const debtValue =
          ((await r.comet<bigint>(market.address, "borrowBalanceOf", [owner])) * basePrice) / scale;
        let weighted = 0n;
        for (let i = 0; i < (await r.comet<number>(market.address, "numAssets")); i++) {
          const info = await r.comet<{
            asset: Address;
            priceFeed: Address;
            scale: bigint;
            liquidateCollateralFactor: bigint;
          }>(market.address, "getAssetInfo", [i]);
          const amount = await r.comet<bigint>(market.address, "collateralBalanceOf", [owner, info.asset]);
          const price = await r.comet<bigint>(market.address, "getPrice", [info.priceFeed]);
          weighted += (((amount * price) / info.scale) * info.liquidateCollateralFactor) / E18;
        }
        // A month of interest since the borrow lowers it a little.
        const health = ratio(weighted, debtValue);
        expect(health, chain.name).toBeGreaterThan(1.18);
        expect(health, chain.name).toBeLessThanOrEqual(1.2);
        expect(await r.comet<boolean>(market.address, "isLiquidatable", [owner])).toBe(false);
      }
    }
  });

  it("behavior: the liquidated account was liquidated after an oracle price drop: cToken LiquidateBorrow cut its debt, Comet absorb cleared it", async () => {
    for (const chain of withLending(env.manifest)) {
      const r = read(chain);
      const logsOf = (address: string) =>
        r.client.getLogs({ address: address as Address, fromBlock: 0n, toBlock: "latest" });
      const ctoken = positionsOf(chain, "ctoken").filter((p) => p.purpose === "liquidated");
      const debt = ctoken.find((p) => p.side === "debt")!;
      const collateral = ctoken.find((p) => p.side === "supply")!;
      const cDebt = cTokenOf(chain, debt);
      const logs = parseEventLogs({ abi: ctokenAbi, logs: await logsOf(cDebt) });
      const borrowed = logs.find((l) => l.eventName === "Borrow" && l.args.borrower === debt.owner);
      const liquidation = logs.find(
        (l) => l.eventName === "LiquidateBorrow" && l.args.borrower === debt.owner,
      );
      expect(borrowed, chain.name).toBeDefined();
      expect(liquidation, chain.name).toBeDefined();
      if (borrowed?.eventName !== "Borrow" || liquidation?.eventName !== "LiquidateBorrow") continue;
      expect(liquidation.args.vTokenCollateral.toLowerCase()).toBe(cTokenOf(chain, collateral));
      const owed = await r.ctoken<bigint>(cDebt, "borrowBalanceStored", [debt.owner]);
      expect(owed).toBeLessThan(
        borrowed.args.borrowAmount - liquidation.args.repayAmount + borrowed.args.borrowAmount / 1000n,
      );
      expect(owed).toBeGreaterThan(0n);
      // The oracle dropped the collateral's price before the liquidation and restored it after.
      const market = marketOf(chain, debt);
      const posted = parseEventLogs({
        abi: ctokenAbi,
        eventName: "PricePosted",
        logs: await logsOf(market.contracts.oracle!),
      }).filter((l) => l.args.asset.toLowerCase() === collateral.asset);
      const drop = posted.find((l) => l.args.newPriceMantissa < l.args.previousPriceMantissa);
      expect(drop, chain.name).toBeDefined();
      // A seed step is one block, so the drop may share the liquidation's block: order by position.
      const before =
        drop!.blockNumber < liquidation.blockNumber ||
        (drop!.blockNumber === liquidation.blockNumber &&
          drop!.transactionIndex < liquidation.transactionIndex);
      expect(before, chain.name).toBe(true);
      expect(posted.at(-1)!.args.newPriceMantissa).toBe(3_000n * E18);

      const comet = positionsOf(chain, "comet").find((p) => p.purpose === "liquidated")!;
      const absorbed = parseEventLogs({
        abi: cometAbi,
        eventName: "AbsorbDebt",
        logs: await logsOf(comet.market),
      });
      const absorb = absorbed.find((l) => l.args.borrower === comet.owner);
      expect(absorb, chain.name).toBeDefined();
      expect(absorb!.args.basePaidOut).toBeGreaterThan(0n);
      expect(await r.comet<bigint>(comet.market, "borrowBalanceOf", [comet.owner])).toBe(0n);
      expect(await r.comet<bigint>(comet.market, "balanceOf", [comet.owner])).toBeGreaterThan(0n);
      const weth = chain.tokens.WETH!.address;
      expect(await r.comet<bigint>(comet.market, "collateralBalanceOf", [comet.owner, weth])).toBe(0n);
      const feed = marketOf(chain, comet).contracts.price_feed_weth!;
      const answers = parseEventLogs({ abi: cometAbi, eventName: "AnswerUpdated", logs: await logsOf(feed) });
      expect(
        answers.some(
          (l) =>
            l.args.current < 3_000n * 10n ** 8n &&
            (l.blockNumber < absorb!.blockNumber || l.transactionIndex < absorb!.transactionIndex),
        ),
      ).toBe(true);
      expect(answers.at(-1)!.args.current).toBe(3_000n * 10n ** 8n);
    }
  });

  it("behavior: interest grows as devnet time passes: debts a month apart in the history differ", async () => {
    for (const chain of withLending(env.manifest)) {
      const r = read(chain);
      // The oldest history blocks whose state the dump keeps, a month of chain time before the head.
      const early = BigInt(chain.seed_head_block - 40);
      const head = BigInt(chain.seed_head_block);
      const [earlyBlock, headBlock] = await Promise.all([
        r.client.getBlock({ blockNumber: early }),
        r.client.getBlock({ blockNumber: head }),
      ]);
      expect(Number(headBlock.timestamp - earlyBlock.timestamp)).toBeGreaterThan(20 * 86_400);
      const ctokenDebt = positionsOf(chain, "ctoken").find(
        (p) => p.purpose === "borrower" && p.side === "debt",
      )!;
      const cToken = cTokenOf(chain, ctokenDebt);
      const then = await r.ctoken<bigint>(cToken, "borrowBalanceStored", [ctokenDebt.owner], early);
      const now = await r.ctoken<bigint>(cToken, "borrowBalanceStored", [ctokenDebt.owner], head);
      expect(now, `${chain.name} cToken`).toBeGreaterThan(then);
      expect(await r.ctoken<bigint>(cToken, "exchangeRateStored", [], head)).toBeGreaterThan(
        await r.ctoken<bigint>(cToken, "exchangeRateStored", [], early),
      );
      // Comet grows per second: the month's growth matches the borrow rate at the market's utilization.
      const cometDebt = positionsOf(chain, "comet").find(
        (p) => p.purpose === "borrower" && p.side === "debt",
      )!;
      const owedThen = await r.comet<bigint>(cometDebt.market, "borrowBalanceOf", [cometDebt.owner], early);
      const owedNow = await r.comet<bigint>(cometDebt.market, "borrowBalanceOf", [cometDebt.owner], head);
      const utilization = await r.comet<bigint>(cometDebt.market, "getUtilization", [], early);
      const perSecond = await r.comet<bigint>(cometDebt.market, "getBorrowRate", [utilization], early);
      const expected = Number(perSecond * (headBlock.timestamp - earlyBlock.timestamp)) / 1e18;
      expect(ratio(owedNow - owedThen, owedThen), `${chain.name} Comet`).toBeCloseTo(expected, 4);
      expect(expected).toBeGreaterThan(0.001);
      const totals = await r.comet<{ lastAccrualTime: number }>(cometDebt.market, "totalsBasic", [], head);
      expect(totals.lastAccrualTime).toBeGreaterThan(Number(earlyBlock.timestamp));
    }
  });

  it("behavior: the chains config registers each comptroller as ctoken (fork on base and optimism) and each Comet as comet", async () => {
    const config = JSON.parse(await readFile(env.devnet.chainsConfigPath, "utf8")) as {
      chains: {
        chain_id: number;
        protocols: {
          protocol: string;
          kind: string;
          address: string;
          fork?: boolean;
          blocks_per_year?: number;
        }[];
      }[];
    };
    for (const chain of withLending(env.manifest)) {
      const protocols = config.chains.find((c) => c.chain_id === chain.chain_id)!.protocols;
      const lending = protocols.filter((p) => p.kind === "ctoken" || p.kind === "comet");
      const ctoken = marketsOf(chain, "ctoken")[0]!;
      const comet = marketsOf(chain, "comet")[0]!;
      expect(lending).toEqual([
        {
          protocol: ctoken.protocol,
          kind: "ctoken",
          address: ctoken.address,
          // The JumpRateModel's own assumption (3-second blocks), so APYs match its yearly rates.
          blocks_per_year: 10_512_000,
          ...(chain.chain_id === 1 ? {} : { fork: true }),
        },
        { protocol: "CompoundV3", kind: "comet", address: comet.address },
      ]);
    }
  });
});
