import { type Address, encodeDeployData, maxUint256, numberToHex, parseEther, zeroHash } from "viem";
import { erc20Abi } from "../abis.js";
import type { ChainClient } from "../ChainClient.js";
import type { CompiledContracts } from "../compileContracts.js";
import type { ManifestRestaking } from "../DevnetManifest.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress } from "../devAccounts.js";
import { openTxBatch, type TxBatch } from "../lending/txBatch.js";
import { tokenDecimals } from "../tokenDecimals.js";
import { units } from "../tokenSpecs.js";
import { delegationManagerAbi, strategyBaseAbi, strategyManagerAbi } from "./vaultAbis.js";

/** `protocol` of the restaking stand-ins' registry entry and positions. */
export const RESTAKE_PROTOCOL = "EigenLayer";

/** The chain that gets the restaking stand-ins, as in the spec (ethereum only). */
const RESTAKING_CHAIN = 1;

/** Whole units the restaker deposits per strategy, and WETH sent to the WETH strategy as yield. */
const DEPOSITS = { WETH: 3, USDC: 2_000 } as const;
const WETH_YIELD = 0.3;

const code = (compiled: CompiledContracts, name: string) => {
  const bytecode = compiled[name]?.bytecode;
  if (bytecode === undefined) throw new Error(`contract ${name} missing from the solc build`);
  return bytecode;
};

/**
 * Queues a deposit of `amount` of `underlying` into `strategy` through `manager` by `staker` (which the node
 * must impersonate), the tokens sent to it by `funder` first.
 */
export const depositIntoStrategyFor = async (
  batch: TxBatch,
  p: {
    readonly funder: Address;
    readonly staker: Address;
    readonly manager: Address;
    readonly strategy: Address;
    readonly underlying: Address;
    readonly amount: bigint;
  },
): Promise<void> => {
  await batch.send({
    from: p.funder,
    address: p.underlying,
    abi: erc20Abi,
    functionName: "transfer",
    args: [p.staker, p.amount],
  });
  await batch.send({
    from: p.staker,
    address: p.underlying,
    abi: erc20Abi,
    functionName: "approve",
    args: [p.manager, maxUint256],
  });
  await batch.send({
    from: p.staker,
    address: p.manager,
    abi: strategyManagerAbi,
    functionName: "depositIntoStrategy",
    args: [p.strategy, p.underlying, p.amount],
  });
};

/**
 * Deploys the restaking stand-ins on ethereum (DelegationManager, StrategyManager, a StrategyBase over
 * WETH and one over USDC) and has `restaker` deposit into both and delegate to `restakeOperator`, all in
 * one block. The WETH strategy then receives WETH directly (as rewards would), so its shares are worth
 * more than they cost. Other chains get nothing (null).
 */
export const seedRestaking = async (
  client: ChainClient,
  contracts: DeployedContracts,
  compiled: CompiledContracts,
): Promise<ManifestRestaking | null> => {
  if (client.chainId !== RESTAKING_CHAIN) return null;
  const deployer = roleAddress("deployer");
  const restaker = roleAddress("restaker");
  const operator = roleAddress("restakeOperator");
  for (const role of [restaker, operator]) {
    await client.rpc("anvil_impersonateAccount", [role]);
    await client.rpc("anvil_setBalance", [role, numberToHex(parseEther("10"))]);
  }
  try {
    const batch = await openTxBatch(client);
    const delegation = await batch.deploy(
      deployer,
      encodeDeployData({ abi: delegationManagerAbi, bytecode: code(compiled, "DelegationManager") }),
    );
    const manager = await batch.deploy(
      deployer,
      encodeDeployData({
        abi: strategyManagerAbi,
        bytecode: code(compiled, "StrategyManager"),
        args: [delegation],
      }),
    );
    const symbols = Object.keys(DEPOSITS) as (keyof typeof DEPOSITS)[];
    const strategies: Array<{ address: Address; underlying: Address; symbol: keyof typeof DEPOSITS }> = [];
    for (const symbol of symbols) {
      const underlying = contracts.tokens[symbol];
      const address = await batch.deploy(
        deployer,
        encodeDeployData({
          abi: strategyBaseAbi,
          bytecode: code(compiled, "StrategyBase"),
          args: [manager, underlying],
        }),
      );
      strategies.push({ address, underlying, symbol });
    }
    await batch.send({
      from: deployer,
      address: manager,
      abi: strategyManagerAbi,
      functionName: "addStrategiesToDepositWhitelist",
      args: [strategies.map((s) => s.address)],
    });
    await batch.send({
      from: operator,
      address: delegation,
      abi: delegationManagerAbi,
      functionName: "registerAsOperator",
      args: [],
    });
    for (const { address, underlying, symbol } of strategies)
      await depositIntoStrategyFor(batch, {
        funder: deployer,
        staker: restaker,
        manager,
        strategy: address,
        underlying,
        amount: units(DEPOSITS[symbol], tokenDecimals(symbol)),
      });
    await batch.send({
      from: restaker,
      address: delegation,
      abi: delegationManagerAbi,
      functionName: "delegateTo",
      args: [operator, { signature: "0x", expiry: 0n }, zeroHash],
    });
    const wethStrategy = strategies.find((s) => s.symbol === "WETH")!;
    await batch.send({
      from: deployer,
      address: contracts.tokens.WETH,
      abi: erc20Abi,
      functionName: "transfer",
      args: [wethStrategy.address, parseEther(String(WETH_YIELD))],
    });
    await batch.mine();
    return {
      protocol: RESTAKE_PROTOCOL,
      strategy_manager: manager,
      delegation_manager: delegation,
      strategies,
      deposits: strategies.map((s) => ({ staker: restaker, strategy: s.address, operator })),
    };
  } finally {
    for (const role of [restaker, operator]) await client.rpc("anvil_stopImpersonatingAccount", [role]);
  }
};
