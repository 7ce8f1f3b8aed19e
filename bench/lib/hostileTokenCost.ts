import { readFileSync } from "node:fs";
import {
  type Address,
  createPublicClient,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  http,
  maxUint256,
  parseAbi,
} from "viem";
import { VAULT_LENS_ADDRESS, vaultLensCode } from "../../src/chains/lens/vaultLens.js";
import { MULTICALL3_ADDRESS } from "../../src/chains/multicall3.js";
import { chainClient } from "../../src/devnet/ChainClient.js";
import type { ManifestChain } from "../../src/devnet/DevnetManifest.js";
import { roleAddress } from "../../src/devnet/devAccounts.js";
import { openTxBatch } from "../../src/devnet/lending/txBatch.js";
import { startTestDevnet } from "../../test/support/devnetFixture.js";
import { startTestNats } from "../../test/support/natsServer.js";
import { compileSolidity } from "../../test/support/solidity.js";
import { benchKey, startServiceProcess } from "./benchEnv.js";
import { replay } from "./replay.js";
import { sequential } from "./sequential.js";
import { median } from "./stats.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 3);
/** The chain the wallets live on: base, which has every vault. */
const CHAIN = 8453;

const abi = parseAbi([
  "function transfer(address, uint256) returns (bool)",
  "function approve(address, uint256) returns (bool)",
  "function deposit(uint256, address) returns (uint256)",
  "function probe(address)",
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[])",
]);

/** Measures the gas a call takes, whether it succeeds or not (an estimate cannot: a failure is allowed). */
const GAS_METER = `
pragma solidity ^0.8.20;
contract GasMeter {
    function measure(address target, bytes calldata data) external returns (uint256 used, bool ok) {
        uint256 before = gasleft();
        (ok, ) = target.call(data);
        used = before - gasleft();
    }
}`;
const gasMeterAbi = parseAbi(["function measure(address, bytes) returns (uint256 used, bool ok)"]);

/** The probe of `token` as the index sends it: one call of a Multicall3 batch that may fail alone. */
const probeCall = (token: Address) => ({
  to: MULTICALL3_ADDRESS as Address,
  data: encodeFunctionData({
    abi,
    functionName: "aggregate3",
    args: [
      [
        {
          target: VAULT_LENS_ADDRESS as Address,
          allowFailure: true,
          callData: encodeFunctionData({ abi, functionName: "probe", args: [token] }),
        },
      ],
    ],
  }),
});

/** The hostile tokens measured: one that fails the probe by burning gas, one that passes it and burns gas when its balance is read. */
const HOSTILE = {
  "probe gas burner": { contract: "GasBurnerVault", withReal: false },
  "balance trap": { contract: "TrapVault", withReal: true },
} as const;
type Hostile = keyof typeof HOSTILE;

/**
 * Wallets `plain` and one per hostile token, on one chain and in one block: each gets one unit of every
 * devnet token and shares of the USDC and WETH vaults (its normal tokens); the others also get their
 * hostile token. Returns how many normal tokens each holds.
 */
const seedWallets = async (chain: ManifestChain, wallets: Record<"plain" | Hostile, Address>) => {
  const client = chainClient(chain.chain_id, chain.name, chain.rpc_url);
  const deployer = roleAddress("deployer");
  const bytecode = compileSolidity(
    readFileSync(new URL("../../test/fixtures/HostileVaults.sol", import.meta.url), "utf8"),
  );
  const vaults = chain.vaults.filter((v) => v.purpose === "usdc" || v.purpose === "weth");
  const batch = await openTxBatch(client);
  for (const vault of vaults)
    await batch.send({
      from: deployer,
      address: vault.asset as Address,
      abi,
      functionName: "approve",
      args: [vault.address as Address, maxUint256],
    });
  for (const wallet of Object.values(wallets)) {
    for (const token of Object.values(chain.tokens))
      await batch.send({
        from: deployer,
        address: token.address as Address,
        abi,
        functionName: "transfer",
        args: [wallet, 1n],
      });
    for (const vault of vaults)
      await batch.send({
        from: deployer,
        address: vault.address as Address,
        abi,
        functionName: "deposit",
        args: [1_000_000n, wallet],
      });
  }
  const gasMeter = await batch.deploy(deployer, compileSolidity(GAS_METER).GasMeter!);
  const hostile: Partial<Record<Hostile, Address>> = {};
  for (const [name, { contract, withReal }] of Object.entries(HOSTILE) as [
    Hostile,
    (typeof HOSTILE)[Hostile],
  ][])
    hostile[name] = await batch.deploy(
      deployer,
      encodeDeployData({
        abi: parseAbi([withReal ? "constructor(address, address)" : "constructor(address)"]),
        bytecode: bytecode[contract]!,
        args: withReal ? [wallets[name], chain.tokens.USDC!.address as Address] : [wallets[name]],
      }),
    );
  await batch.mine();
  return {
    normalTokens: Object.keys(chain.tokens).length + vaults.length,
    hostile: hostile as Record<Hostile, Address>,
    gasMeter,
  };
};

/** The raw JSON-RPC body of {@link probeCall}, the lens placed by state override as the index does. */
const probeBody = (code: Hex, token: Address) =>
  Buffer.from(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_call",
      params: [probeCall(token), "latest", { [VAULT_LENS_ADDRESS]: { code } }],
    }),
  );

/**
 * The cost of one hostile token among a wallet's tokens: the cold positions request of a wallet with N
 * normal tokens against the same wallet plus one hostile token (one that fails the vault probe by burning
 * gas; one that passes it and burns gas whenever its balance is read), and the probe itself, which the
 * index runs once per token: its gas and its time against a plain token's.
 */
export const hostileTokenCost = async () => {
  const devnet = await startTestDevnet();
  const chain = devnet.manifest.chains.find((c) => c.chain_id === CHAIN)!;
  const wallets = {
    plain: "0x00000000000000000000000000000000000ba500" as Address,
    "probe gas burner": "0x00000000000000000000000000000000000ba501" as Address,
    "balance trap": "0x00000000000000000000000000000000000ba502" as Address,
  };
  const { normalTokens, hostile, gasMeter } = await seedWallets(chain, wallets);
  const nats = await startTestNats();
  const cold = await startServiceProcess(nats, devnet.devnet.chainsConfigPath, {
    env: { BALANCES_CACHE_ENTRIES: "0" },
  });
  const key = { "x-svc-api-key": await benchKey(nats, "bench") };
  const url = (wallet: string) => `${cold.url}/beta/evm/defi/positions/${wallet}?chain_ids=${CHAIN}`;
  try {
    // Wait until the service has indexed the block: every wallet then shows its two vaults.
    for (const wallet of Object.values(wallets)) {
      for (;;) {
        const res = await fetch(url(wallet), { headers: key });
        const body = (await res.json()) as { positions?: unknown[] };
        if (res.status === 200 && (body.positions?.length ?? 0) >= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
    const coldP50 = new Map<string, number[]>(Object.keys(wallets).map((name) => [name, []]));
    for (let i = 0; i < REPETITIONS; i++)
      for (const [name, wallet] of Object.entries(wallets))
        coldP50.get(name)!.push((await sequential(url(wallet), SECONDS, key)).p50Ms);

    const code = await vaultLensCode();
    const client = createPublicClient({ transport: http(chain.rpc_url) });
    const probed: Record<string, Address> = {
      "a plain ERC-20 (USDC)": chain.tokens.USDC!.address as Address,
      "a real vault (dvUSDC)": chain.vaults.find((v) => v.purpose === "usdc")!.address as Address,
      ...hostile,
    };
    const probes: string[] = [];
    for (const [name, token] of Object.entries(probed)) {
      const { result } = await client.simulateContract({
        address: gasMeter,
        abi: gasMeterAbi,
        functionName: "measure",
        args: [
          VAULT_LENS_ADDRESS as Address,
          encodeFunctionData({ abi, functionName: "probe", args: [token] }),
        ],
        gas: 30_000_000n,
        stateOverride: [{ address: VAULT_LENS_ADDRESS, code }],
      });
      const [gas, passed] = result;
      const time = await replay(chain.rpc_url, probeBody(code, token), 100);
      probes.push(
        `probe of ${name}: ${passed ? "a vault" : "not a vault"}, ${gas} gas; as a Multicall3 batch of one, eth_call p50 ${time.p50Ms.toFixed(2)} ms`,
      );
    }
    const ms = (name: string) => median(coldP50.get(name)!);
    return [
      `wallet with ${normalTokens} normal tokens (2 of them vaults), chain ${CHAIN}, cold, 1 client: p50 ${ms("plain").toFixed(2)} ms`,
      ...(Object.keys(HOSTILE) as Hostile[]).map(
        (name) =>
          `  plus one ${name}: p50 ${ms(name).toFixed(2)} ms (x${(ms(name) / ms("plain")).toFixed(2)} of the plain wallet)`,
      ),
      ...probes,
    ];
  } finally {
    await cold.stop();
    await nats.stop();
    await devnet.stop();
  }
};
