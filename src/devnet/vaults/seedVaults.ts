import { type Address, encodeDeployData, maxUint256 } from "viem";
import { erc20Abi } from "../abis.js";
import type { ChainClient } from "../ChainClient.js";
import type { CompiledContracts } from "../compileContracts.js";
import type { ManifestVault } from "../DevnetManifest.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress } from "../devAccounts.js";
import { openTxBatch, type TxBatch } from "../lending/txBatch.js";
import { tokenDecimals } from "../tokenDecimals.js";
import { units } from "../tokenSpecs.js";
import { devVaultAbi } from "./vaultAbis.js";

/** Whole units deposited for the holder, and the donation that raises the `donated` vault's share price by half. */
const DEPOSIT_USDC = 5_000;
const DEPOSIT_WETH = 2;
const NESTED_USDC = 3_000;
const DONATED_DEPOSIT_USDC = 1_000;
const DONATION_USDC = 500;

/** Queues `from`'s deposit of `assets` into `vault` for `receiver` (`from` must have approved the vault). */
export const depositInVault = (
  batch: TxBatch,
  from: Address,
  vault: Address,
  assets: bigint,
  receiver: Address,
): Promise<void> =>
  batch.send({ from, address: vault, abi: devVaultAbi, functionName: "deposit", args: [assets, receiver] });

/**
 * Deploys four OpenZeppelin ERC-4626 vaults and gives `vaultHolder` shares in each, all in one block:
 * over USDC, over WETH, over the USDC vault's shares (`nested`: the deployer deposits USDC, then its
 * shares into the second vault for the holder), and over USDC with a donation of USDC after the deposit
 * (`donated`: one share is then worth 1.5 USDC). The deployer deposits on the holder's behalf
 * (`deposit(assets, receiver)`), so the holder needs neither ether nor impersonation.
 */
export const seedVaults = async (
  client: ChainClient,
  contracts: DeployedContracts,
  compiled: CompiledContracts,
): Promise<readonly ManifestVault[]> => {
  const deployer = roleAddress("deployer");
  const holder = roleAddress("vaultHolder");
  const { USDC: usdc, WETH: weth } = contracts.tokens;
  const bytecode = compiled.DevVault?.bytecode;
  if (bytecode === undefined) throw new Error("contract DevVault missing from the solc build");
  const batch = await openTxBatch(client);
  const deployVault = (asset: Address, name: string, symbol: string) =>
    batch.deploy(deployer, encodeDeployData({ abi: devVaultAbi, bytecode, args: [asset, name, symbol] }));
  const usdcVault = await deployVault(usdc, "Devnet USDC Vault", "dvUSDC");
  const wethVault = await deployVault(weth, "Devnet WETH Vault", "dvWETH");
  const nestedVault = await deployVault(usdcVault, "Devnet Vault of dvUSDC", "dvvUSDC");
  const donatedVault = await deployVault(usdc, "Devnet Yield USDC Vault", "dyUSDC");

  const approve = (token: Address, spender: Address) =>
    batch.send({
      from: deployer,
      address: token,
      abi: erc20Abi,
      functionName: "approve",
      args: [spender, maxUint256],
    });
  const deposit = (vault: Address, assets: bigint, receiver: Address) =>
    depositInVault(batch, deployer, vault, assets, receiver);
  const usdcUnits = (whole: number) => units(whole, tokenDecimals("USDC"));

  await approve(usdc, usdcVault);
  await approve(usdc, donatedVault);
  await approve(weth, wethVault);
  await approve(usdcVault, nestedVault);
  await deposit(usdcVault, usdcUnits(DEPOSIT_USDC), holder);
  await deposit(wethVault, units(DEPOSIT_WETH, tokenDecimals("WETH")), holder);
  // The USDC vault starts at one share per unit, so the deployer's shares equal the USDC it put in.
  await deposit(usdcVault, usdcUnits(NESTED_USDC), deployer);
  await deposit(nestedVault, usdcUnits(NESTED_USDC), holder);
  await deposit(donatedVault, usdcUnits(DONATED_DEPOSIT_USDC), holder);
  await batch.send({
    from: deployer,
    address: usdc,
    abi: erc20Abi,
    functionName: "transfer",
    args: [donatedVault, usdcUnits(DONATION_USDC)],
  });
  await batch.mine();
  const vault = (
    purpose: ManifestVault["purpose"],
    address: Address,
    symbol: string,
    asset: Address,
  ): ManifestVault => ({
    purpose,
    address,
    symbol,
    asset,
    holders: [holder],
  });
  return [
    vault("usdc", usdcVault, "dvUSDC", usdc),
    vault("weth", wethVault, "dvWETH", weth),
    vault("nested", nestedVault, "dvvUSDC", usdcVault),
    vault("donated", donatedVault, "dyUSDC", usdc),
  ];
};
