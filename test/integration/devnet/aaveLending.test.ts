import { readFile } from "node:fs/promises";
import { type Address, type PublicClient, parseAbi, parseEventLogs, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  ManifestChain,
  ManifestLendingMarket,
  ManifestLendingPosition,
} from "../../../src/devnet/DevnetManifest.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { marketOf, ratio, symbolOf } from "./lendingReads.js";
import { clientFor } from "./positionReads.js";

/** Aave's public interfaces, written out here (not taken from the seed code); V2 and V3 share these. */
const aaveAbi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function getUserAccountData(address) view returns (uint256, uint256, uint256, uint256, uint256, uint256)",
  "function getReservesList() view returns (address[])",
  "function getReserveTokensAddresses(address) view returns (address, address, address)",
  "function getAssetPrice(address) view returns (uint256)",
  "function getSourceOfAsset(address) view returns (address)",
  "function latestAnswer() view returns (int256)",
  "function UNDERLYING_ASSET_ADDRESS() view returns (address)",
  "function symbol() view returns (string)",
  "event ReserveInitialized(address indexed asset, address indexed aToken, address stableDebtToken, address variableDebtToken, address interestRateStrategyAddress)",
  "event LiquidationCall(address indexed collateralAsset, address indexed debtAsset, address indexed user, uint256 debtToCover, uint256 liquidatedCollateralAmount, address liquidator, bool receiveAToken)",
  "event AssetSourceUpdated(address indexed asset, address indexed source)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);

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
const isAave = (kind: string) => kind === "aave_v2" || kind === "aave_v3";

/** The chains with Aave markets; every test reads all three, so a seed without them fails everywhere. */
const aaveChains = () => {
  const chains = env.manifest.chains.filter((c) => c.lending_markets.some((m) => isAave(m.kind)));
  expect(chains.map((c) => c.chain_id)).toEqual([1, 8453, 10]);
  return chains;
};
const aaveMarkets = (chain: ManifestChain) => chain.lending_markets.filter((m) => isAave(m.kind));
const aavePositions = (chain: ManifestChain, purpose?: string) =>
  chain.lending_positions.filter((p) => isAave(p.kind) && (purpose === undefined || p.purpose === purpose));

const read = <T>(
  client: PublicClient,
  address: string,
  functionName: string,
  args: unknown[] = [],
  block?: bigint,
) =>
  client.readContract({
    address: address as Address,
    abi: aaveAbi,
    functionName,
    args,
    blockNumber: block,
  } as never) as Promise<T>;

/** The aToken (supply side) or variable debt token (debt side) of a position, from the manifest's market. */
const tokenOf = (chain: ManifestChain, position: ManifestLendingPosition): Address => {
  const asset = marketOf(chain, position).assets.find((a) => a.asset === position.asset);
  const token = position.side === "debt" ? asset?.debt_token : asset?.supply_token;
  if (token == null) throw new Error(`no ${position.side} token for ${position.asset} on ${chain.name}`);
  return token as Address;
};

const balanceOf = (client: PublicClient, token: string, owner: string, block?: bigint) =>
  read<bigint>(client, token, "balanceOf", [owner], block);

const healthFactor = async (client: PublicClient, market: ManifestLendingMarket, owner: string) =>
  (await read<readonly bigint[]>(client, market.address, "getUserAccountData", [owner]))[5] as bigint;

/** The newest block at least `days` before the head: its state is kept, as the history's blocks are. */
const blockDaysBeforeHead = async (client: PublicClient, days: number): Promise<bigint> => {
  const head = await client.getBlock();
  for (let number = head.number - 1n; number > 0n; number--) {
    const block = await client.getBlock({ blockNumber: number });
    if (block.timestamp <= head.timestamp - BigInt(days * 86_400)) return number;
  }
  throw new Error(`no block ${days} days before the head`);
};

describe("devnet Aave markets", () => {
  it("default: ethereum has AaveV2 and AaveV3, base and optimism AaveV3, each in the chains config; every wallet purpose is in each market", async () => {
    expect(aaveChains().map((c) => [c.chain_id, aaveMarkets(c).map((m) => m.protocol)])).toEqual([
      [1, ["AaveV2", "AaveV3"]],
      [8453, ["AaveV3"]],
      [10, ["AaveV3"]],
    ]);
    const config = JSON.parse(await readFile(env.manifest.chains_config_path, "utf8")) as {
      chains: { chain_id: number; protocols: Record<string, unknown>[] }[];
    };
    for (const chain of aaveChains()) {
      const protocols = config.chains.find((c) => c.chain_id === chain.chain_id)?.protocols ?? [];
      for (const market of aaveMarkets(chain)) {
        expect(protocols).toContainEqual({
          protocol: market.protocol,
          kind: market.kind,
          address: market.address,
          configurator: market.contracts.configurator,
          data_provider: market.contracts.data_provider,
        });
        const positions = aavePositions(chain).filter((p) => p.market === market.address);
        expect([...new Set(positions.map((p) => p.purpose))].sort()).toEqual([...PURPOSES].sort());
        for (const p of positions) expect(chain.wallets[p.wallet], p.wallet).toBe(p.owner);
      }
    }
    expect(env.manifest.chains.find((c) => c.chain_id === 57073)?.lending_markets).toEqual([]);
  });

  it("behavior: each market's reserves are WETH, USDC, WBTC and UNI, listed by ReserveInitialized with the manifest's tokens", async () => {
    for (const chain of aaveChains()) {
      const client = clientFor(chain);
      for (const market of aaveMarkets(chain)) {
        const listed = await read<readonly Address[]>(client, market.address, "getReservesList");
        expect(listed.map((a) => symbolOf(chain, a.toLowerCase())).sort()).toEqual([
          "UNI",
          "USDC",
          "WBTC",
          "WETH",
        ]);
        const logs = parseEventLogs({
          abi: aaveAbi,
          eventName: "ReserveInitialized",
          logs: await client.getLogs({ address: market.contracts.configurator as Address, fromBlock: 0n }),
        });
        for (const asset of market.assets) {
          const event = logs.find((l) => l.args.asset.toLowerCase() === asset.asset);
          expect(event?.args.aToken.toLowerCase(), asset.symbol).toBe(asset.supply_token);
          expect(event?.args.variableDebtToken.toLowerCase(), asset.symbol).toBe(asset.debt_token);
          const [aToken, , debtToken] = await read<readonly Address[]>(
            client,
            market.contracts.data_provider as string,
            "getReserveTokensAddresses",
            [asset.asset],
          );
          expect([aToken?.toLowerCase(), debtToken?.toLowerCase()]).toEqual([
            asset.supply_token,
            asset.debt_token,
          ]);
          const underlying = await read<Address>(
            client,
            asset.supply_token as string,
            "UNDERLYING_ASSET_ADDRESS",
          );
          expect(underlying.toLowerCase()).toBe(asset.asset);
        }
      }
    }
  });

  it("behavior: the oracles price at the DEX markets' opening prices (V3 in USD with 8 decimals, V2 in ETH wei)", async () => {
    const usd: Record<string, number> = { WETH: 3_000, USDC: 1, WBTC: 60_000, UNI: 10 };
    for (const chain of aaveChains()) {
      const client = clientFor(chain);
      for (const market of aaveMarkets(chain)) {
        for (const asset of market.assets) {
          const price = await read<bigint>(client, market.contracts.oracle as string, "getAssetPrice", [
            asset.asset,
          ]);
          const expected = usd[asset.symbol] as number;
          if (market.kind === "aave_v3") expect(price, asset.symbol).toBe(BigInt(expected) * 10n ** 8n);
          else expect(ratio(price, E18), asset.symbol).toBeCloseTo(expected / 3_000, 6);
        }
      }
    }
  });

  it("behavior: every supply position holds aTokens and every debt position owes variable debt", async () => {
    for (const chain of aaveChains()) {
      const client = clientFor(chain);
      for (const p of aavePositions(chain)) {
        const balance = await balanceOf(client, tokenOf(chain, p), p.owner);
        expect(
          balance,
          `${chain.name} ${p.protocol} ${p.purpose} ${p.side} ${symbolOf(chain, p.asset)}`,
        ).toBeGreaterThan(0n);
      }
      const supplierDebt = aavePositions(chain, "supplier").filter((p) => p.side === "debt");
      expect(supplierDebt).toEqual([]);
    }
  });

  it("behavior: the borrower's health factor by getUserAccountData is between 1.1 and 1.3 in every market", async () => {
    for (const chain of aaveChains()) {
      const client = clientFor(chain);
      for (const market of aaveMarkets(chain)) {
        const borrower = aavePositions(chain, "borrower").find((p) => p.market === market.address);
        const health = ratio(await healthFactor(client, market, borrower?.owner as string), E18);
        expect(health, `${chain.name} ${market.protocol}`).toBeGreaterThan(1.1);
        expect(health, `${chain.name} ${market.protocol}`).toBeLessThan(1.3);
      }
    }
  });

  it("behavior: the debt-only wallet owes in a reserve where it supplies nothing, its collateral sits in another", async () => {
    for (const chain of aaveChains()) {
      const client = clientFor(chain);
      for (const market of aaveMarkets(chain)) {
        const positions = aavePositions(chain, "debt_only").filter((p) => p.market === market.address);
        const debts = positions.filter((p) => p.side === "debt");
        expect(debts.length).toBeGreaterThan(0);
        for (const debt of debts) {
          const reserve = market.assets.find((a) => a.asset === debt.asset);
          expect(await balanceOf(client, reserve?.supply_token as string, debt.owner)).toBe(0n);
          expect(await balanceOf(client, reserve?.debt_token as string, debt.owner)).toBeGreaterThan(0n);
          expect(positions.filter((p) => p.side === "supply" && p.asset === debt.asset)).toEqual([]);
        }
        expect(positions.some((p) => p.side === "supply")).toBe(true);
      }
    }
  });

  it("behavior: the liquidated wallet was liquidated after its collateral's oracle price dropped; its debt shrank and a position is left", async () => {
    for (const chain of aaveChains()) {
      const client = clientFor(chain);
      for (const market of aaveMarkets(chain)) {
        const where = `${chain.name} ${market.protocol}`;
        const positions = aavePositions(chain, "liquidated").filter((p) => p.market === market.address);
        const owner = positions[0]?.owner as Address;
        const calls = parseEventLogs({
          abi: aaveAbi,
          eventName: "LiquidationCall",
          logs: await client.getLogs({ address: market.address as Address, fromBlock: 0n }),
        }).filter((l) => l.args.user === owner);
        expect(calls, where).toHaveLength(1);
        const call = calls[0] as (typeof calls)[number];
        expect(call.args.liquidator).not.toBe(owner);
        expect(call.args.debtToCover).toBeGreaterThan(0n);
        const collateral = call.args.collateralAsset.toLowerCase();
        expect(positions.find((p) => p.side === "supply")?.asset).toBe(collateral);

        // The price source the oracle read at the liquidation answered less than the one it reads now.
        const oracle = market.contracts.oracle as Address;
        const sourceUpdates = parseEventLogs({
          abi: aaveAbi,
          eventName: "AssetSourceUpdated",
          logs: await client.getLogs({ address: oracle, fromBlock: 0n, toBlock: call.blockNumber }),
        }).filter(
          // The seed is one block: only the updates logged before the liquidation's own log count.
          (l) =>
            l.args.asset.toLowerCase() === collateral &&
            (l.blockNumber < call.blockNumber || l.logIndex < call.logIndex),
        );
        const sourceThen = sourceUpdates.at(-1)?.args.source as Address;
        const sourceNow = await read<Address>(client, oracle, "getSourceOfAsset", [collateral]);
        expect(sourceThen).not.toBe(sourceNow);
        const answerThen = await read<bigint>(client, sourceThen, "latestAnswer");
        const answerNow = await read<bigint>(client, sourceNow, "latestAnswer");
        expect(ratio(answerThen, answerNow), where).toBeLessThan(0.9);

        // The liquidation burned debt: the wallet now owes less than was ever minted to it.
        const debt = positions.find((p) => p.side === "debt") as ManifestLendingPosition;
        const debtToken = tokenOf(chain, debt);
        const transfers = parseEventLogs({
          abi: aaveAbi,
          eventName: "Transfer",
          logs: await client.getLogs({ address: debtToken, fromBlock: 0n }),
        });
        const burned = transfers.filter(
          (l) =>
            l.transactionHash === call.transactionHash && l.args.from === owner && l.args.to === zeroAddress,
        );
        expect(burned.length, where).toBe(1);
        const minted = transfers
          .filter((l) => l.args.from === zeroAddress && l.args.to === owner)
          .reduce((sum, l) => sum + l.args.value, 0n);
        const owed = await balanceOf(client, debtToken, owner);
        expect(owed).toBeGreaterThan(0n);
        expect(ratio(owed, minted), where).toBeLessThan(0.7);
        const supply = positions.find((p) => p.side === "supply") as ManifestLendingPosition;
        expect(await balanceOf(client, tokenOf(chain, supply), owner)).toBeGreaterThan(0n);
        expect(await healthFactor(client, market, owner)).toBeGreaterThan(E18);
      }
    }
  });

  it("behavior: interest accrues as devnet time passes: every debt and the supplier's deposits grow between a block four weeks back and the head", async () => {
    for (const chain of aaveChains()) {
      const client = clientFor(chain);
      const early = await blockDaysBeforeHead(client, 28);
      const growing = aavePositions(chain).filter((p) => p.side === "debt" || p.purpose === "supplier");
      for (const p of growing) {
        const token = tokenOf(chain, p);
        const then = await balanceOf(client, token, p.owner, early);
        const now = await balanceOf(client, token, p.owner);
        expect(then, `${chain.name} ${p.protocol} ${p.purpose} ${p.side}`).toBeGreaterThan(0n);
        expect(
          now,
          `${chain.name} ${p.protocol} ${p.purpose} ${p.side} ${symbolOf(chain, p.asset)}`,
        ).toBeGreaterThan(then);
      }
    }
  });
});
