import { readFileSync } from "node:fs";
import { headers as natsHeaders } from "@nats-io/transport-node";
import {
  type Address,
  createTestClient,
  encodeDeployData,
  formatUnits,
  http,
  maxUint256,
  parseAbi,
} from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chainClient } from "../../../src/devnet/ChainClient.js";
import type { ManifestVault } from "../../../src/devnet/DevnetManifest.js";
import { roleAddress } from "../../../src/devnet/devAccounts.js";
import { openTxBatch } from "../../../src/devnet/lending/txBatch.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { compileSolidity } from "../../support/solidity.js";
import { closeTo } from "./lendingReference.js";

/**
 * ERC-4626 vault shares and restaking strategy shares of the devnet (docs/devnet.md, "Vaults and
 * restaking") through the positions endpoint: amounts equal to the contracts' own views at the block
 * the service read, the vault over a vault priced through it, hostile tokens never taken for vaults
 * nor able to hold up an answer, and a reorg taking a deposit away.
 */

interface Entry {
  type: string;
  chain_id: number;
  protocol?: string;
  token: string;
  token_symbol?: string | null;
  underlying_token: string;
  underlying_token_symbol: string | null;
  underlying_token_decimals: number;
  calculated_balance: number;
  shares: string;
  price_in_usd?: number;
  usd_value?: number;
  operator?: string | null;
  strategy_manager?: string;
}
interface Body {
  positions: Entry[];
  aggregations: { total_usd_value: number; total_by_chain: Record<string, number> };
}

const VAULT_CHAINS = [1, 8453, 10, 57073];
const abi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function convertToAssets(uint256) view returns (uint256)",
  "function decimals() view returns (uint8)",
  "function deposit(uint256 assets, address receiver) returns (uint256)",
  "function approve(address, uint256) returns (bool)",
  "function stakerStrategyShares(address, address) view returns (uint256)",
  "function sharesToUnderlyingView(uint256) view returns (uint256)",
  "function underlyingToken() view returns (address)",
  "function getDeposits(address) view returns (address[], uint256[])",
]);

let env: DevnetService;
const { chainOf, clientOf } = devnetChains(() => env);
const vaultOf = (id: number, purpose: ManifestVault["purpose"]) =>
  chainOf(id).vaults.find((v) => v.purpose === purpose)!;

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

/** `convertToAssets(balanceOf(owner))` in whole units of the vault's asset, at `block`. */
const vaultAmount = async (id: number, vault: ManifestVault, owner: string, block: bigint) => {
  const shares = await read<bigint>(id, vault.address, "balanceOf", [owner], block);
  const assets = await read<bigint>(id, vault.address, "convertToAssets", [shares], block);
  const decimals = await read<number>(id, vault.asset, "decimals", [], block);
  return { shares, amount: Number(formatUnits(assets, decimals)) };
};

beforeAll(async () => {
  env = await startDevnetService({ requestTimeoutMs: 60_000 });
}, 900_000);

afterAll(async () => {
  await env?.stop();
});

describe("ERC-4626 vault positions on the devnet", () => {
  it("default: the holder gets all four vaults on four chains, each amount equal to convertToAssets(balanceOf) at the block read", async () => {
    const holder = chainOf(1).wallets.vault_holder!;
    const { body, heads } = await answerAtHead(holder, VAULT_CHAINS);
    for (const id of VAULT_CHAINS) {
      for (const vault of chainOf(id).vaults) {
        const what = `${chainOf(id).name} ${vault.symbol}`;
        const entry = body.positions.find(
          (e) => e.chain_id === id && e.type === "Erc4626" && e.token === vault.address.toLowerCase(),
        );
        expect(entry, what).toBeDefined();
        const expected = await vaultAmount(id, vault, holder, heads.get(id)!);
        expect(BigInt(entry!.shares), what).toBe(expected.shares);
        expect(
          closeTo(entry!.calculated_balance, expected.amount),
          `${what}: ${entry!.calculated_balance} vs ${expected.amount}`,
        ).toBe(true);
        expect(entry!.underlying_token, what).toBe(vault.asset.toLowerCase());
        expect(entry!.token_symbol, what).toBe(vault.symbol);
      }
    }
    expect(body.positions.filter((e) => e.type === "Erc4626")).toHaveLength(4 * VAULT_CHAINS.length);
    const sum = body.positions.reduce((s, e) => s + (e.usd_value ?? 0), 0);
    expect(closeTo(body.aggregations.total_usd_value, sum, 9)).toBe(true);
    expect(body.aggregations.total_usd_value).toBeGreaterThan(0);
  });

  it("behavior: the vault over a vault is priced through the inner vault, and the donation shows as a higher share price", async () => {
    const holder = chainOf(8453).wallets.vault_holder!;
    const { body } = await answerAtHead(holder, [8453]);
    const entry = (purpose: ManifestVault["purpose"]) =>
      body.positions.find((e) => e.token === vaultOf(8453, purpose).address.toLowerCase())!;
    const nested = entry("nested");
    expect(nested.underlying_token_symbol).toBe("dvUSDC");
    expect(nested.calculated_balance).toBeCloseTo(3_000, 3);
    // One dvUSDC share is worth one USDC, and USDC is a configured stablecoin.
    expect(nested.price_in_usd).toBeCloseTo(1, 6);
    expect(nested.usd_value).toBeCloseTo(3_000, 2);
    const donated = entry("donated");
    expect(BigInt(donated.shares)).toBe(1_000_000_000n);
    expect(donated.calculated_balance).toBeCloseTo(1_500, 3);
    expect(donated.usd_value).toBeCloseTo(1_500, 2);
    const weth = entry("weth");
    expect(weth.calculated_balance).toBeCloseTo(2, 9);
    expect(weth.price_in_usd!).toBeGreaterThan(100);
  });

  it("error: tokens that answer the vault probe wrongly are not vaults, and one that traps the balance read does not hold up the answer", async () => {
    const chain = chainOf(8453);
    const wallet = "0x00000000000000000000000000000000000bad01" as Address;
    const usdc = chain.tokens.USDC!.address as Address;
    const realVault = vaultOf(8453, "usdc");
    const bytecode = compileSolidity(
      readFileSync(new URL("../../fixtures/HostileVaults.sol", import.meta.url), "utf8"),
    );
    const client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
    const deployer = roleAddress("deployer");
    const constructorAbi = (withReal: boolean) =>
      parseAbi([withReal ? "constructor(address holder, address real)" : "constructor(address holder)"]);
    // Every hostile token and a real deposit in ONE block: the probes of that block share a batch,
    // so a gas burner starving the batch would also lose the real vault.
    const batch = await openTxBatch(client);
    const hostile: Record<string, string> = {};
    for (const name of [
      "GarbageVault",
      "RevertingVault",
      "GasBurnerVault",
      "SelfAssetVault",
      "NoCodeAssetVault",
    ])
      hostile[name] = await batch.deploy(
        deployer,
        encodeDeployData({ abi: constructorAbi(false), bytecode: bytecode[name]!, args: [wallet] }),
      );
    for (const name of ["LongAnswerVault", "BurningConvertVault", "TrapVault"])
      hostile[name] = await batch.deploy(
        deployer,
        encodeDeployData({ abi: constructorAbi(true), bytecode: bytecode[name]!, args: [wallet, usdc] }),
      );
    await batch.send({
      from: deployer,
      address: usdc,
      abi,
      functionName: "approve",
      args: [realVault.address as Address, maxUint256],
    });
    await batch.send({
      from: deployer,
      address: realVault.address as Address,
      abi,
      functionName: "deposit",
      args: [120_000_000n, wallet],
    });
    await batch.mine();

    let body: Body = { positions: [], aggregations: { total_usd_value: 0, total_by_chain: {} } };
    await eventually(
      async () => {
        body = await fetchPositions(wallet, [8453]);
        return body.positions.length > 0;
      },
      60_000,
      "the block indexed",
    );
    const tokens = body.positions.map((e) => e.token);
    for (const address of Object.values(hostile)) expect(tokens).not.toContain(address);
    expect(body.positions).toHaveLength(1);
    expect(body.positions[0]!.token).toBe(realVault.address.toLowerCase());
    expect(body.positions[0]!.calculated_balance).toBeCloseTo(120, 6);
    // The trap passed the probe (it answers like a vault) but its read fails alone, within its gas cap.
    const started = performance.now();
    await fetchPositions(wallet, [8453]);
    const cachedMs = performance.now() - started;
    expect(cachedMs).toBeLessThan(5_000);
  });

  it("behavior: a reorg that removes a deposit removes the vault position", async () => {
    const chain = chainOf(10);
    const newcomer = "0x00000000000000000000000000000000000c0ff1" as Address;
    const vault = vaultOf(10, "usdc");
    const client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
    const test = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });
    const snapshot = await test.snapshot();
    const start = await clientOf(10).getBlockNumber();
    const batch = await openTxBatch(client);
    const deployer = roleAddress("deployer");
    await batch.send({
      from: deployer,
      address: chain.tokens.USDC!.address as Address,
      abi,
      functionName: "approve",
      args: [vault.address as Address, maxUint256],
    });
    await batch.send({
      from: deployer,
      address: vault.address as Address,
      abi,
      functionName: "deposit",
      args: [250_000_000n, newcomer],
    });
    await batch.mine();
    const reorganised = Number((await clientOf(10).getBlockNumber()) - start);
    const held = async () =>
      (await fetchPositions(newcomer, [10])).positions.find((e) => e.type === "Erc4626")?.calculated_balance;
    await eventually(async () => (await held()) === 250, 60_000, "the deposit indexed");
    await test.revert({ id: snapshot });
    await test.mine({ blocks: reorganised + 2 });
    await eventually(async () => (await held()) === undefined, 60_000, "the reorganised deposit gone");
  });
});

describe("restaking strategy positions on the devnet", () => {
  it("default: the restaker's shares in both strategies equal stakerStrategyShares, amounts sharesToUnderlyingView, with its operator", async () => {
    const chain = chainOf(1);
    const restaking = chain.restaking!;
    const restaker = chain.wallets.restaker!;
    const { body, heads } = await answerAtHead(restaker, [1, 8453]);
    const block = heads.get(1)!;
    const entries = body.positions.filter((e) => e.type === "RestakeStrategy");
    expect(entries).toHaveLength(2);
    const [strategies, shares] = await read<[string[], bigint[]]>(
      1,
      restaking.strategy_manager,
      "getDeposits",
      [restaker],
      block,
    );
    for (const [i, strategy] of strategies.entries()) {
      const entry = entries.find((e) => e.token === strategy.toLowerCase())!;
      const what = `strategy ${strategy}`;
      expect(entry, what).toBeDefined();
      expect(BigInt(entry.shares), what).toBe(shares[i]);
      expect(
        await read<bigint>(
          1,
          restaking.strategy_manager,
          "stakerStrategyShares",
          [restaker, strategy],
          block,
        ),
      ).toBe(shares[i]);
      const underlying = await read<string>(1, strategy, "underlyingToken", [], block);
      const raw = await read<bigint>(1, strategy, "sharesToUnderlyingView", [shares[i]], block);
      const decimals = await read<number>(1, underlying, "decimals", [], block);
      expect(entry.underlying_token, what).toBe(underlying.toLowerCase());
      expect(closeTo(entry.calculated_balance, Number(formatUnits(raw, decimals))), what).toBe(true);
      expect(entry.operator, what).toBe(chain.wallets.restake_operator!.toLowerCase());
      expect(entry.protocol).toBe(restaking.protocol);
      expect(entry.usd_value!, what).toBeGreaterThan(0);
    }
    // WETH sent to the WETH strategy as yield: 3 WETH of deposits are now worth 3.3.
    const weth = entries.find((e) => e.underlying_token_symbol === "WETH")!;
    expect(weth.calculated_balance).toBeCloseTo(3.3, 6);
    expect(BigInt(weth.shares)).toBe(3n * 10n ** 18n);
  });

  it("behavior: the same vault and restaking answer over NATS request/reply as over HTTP", async () => {
    for (const wallet of [chainOf(1).wallets.vault_holder!, chainOf(1).wallets.restaker!]) {
      const viaHttp = await fetchPositions(wallet, [1, 8453]);
      const nc = await env.nats.connectAs("gateway");
      const headers = natsHeaders();
      headers.set("X-Svc-Api-Key", env.key);
      const reply = await nc.request(
        "svc.beta.evm.defi.positions.get",
        JSON.stringify({ params: { address: wallet }, query: { chain_ids: "1,8453" }, body: null }),
        { timeout: 30_000, headers },
      );
      expect(reply.headers?.get("Svc-Status")).toBe("200");
      expect(reply.json()).toEqual(viaHttp);
    }
  });
});
