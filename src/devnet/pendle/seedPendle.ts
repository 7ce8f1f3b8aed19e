import {
  type Address,
  encodeDeployData,
  getContractAddress,
  maxUint256,
  numberToHex,
  parseEther,
} from "viem";
import { erc20Abi } from "../abis.js";
import type { ChainClient } from "../ChainClient.js";
import type { CompiledContracts } from "../compileContracts.js";
import type { ManifestPendle } from "../DevnetManifest.js";
import type { DeployedContracts } from "../deployContracts.js";
import { roleAddress } from "../devAccounts.js";
import { openTxBatch, type TxBatch } from "../lending/txBatch.js";
import { tokenDecimals } from "../tokenDecimals.js";
import { units } from "../tokenSpecs.js";
import { devVaultAbi } from "../vaults/vaultAbis.js";
import {
  pendleGaugeControllerAbi,
  pendleMarketAbi,
  pendleMarketFactoryAbi,
  pendleSyAbi,
  pendleVotingEscrowAbi,
  pendleYieldFactoryAbi,
  pendleYieldTokenAbi,
} from "./pendleAbis.js";
import { pendleBytecode, splitCreationCode } from "./pendleArtifacts.js";

/** `protocol` of the Pendle registry entry and positions. */
export const PENDLE_PROTOCOL = "PendleV2";

/** The chains that get Pendle, as in the spec. */
const PENDLE_CHAINS = new Set([1, 10, 8453]);

const DAY = 86_400;
/** The `past` expiry is this many days after seeding starts: the month of history the seed mines passes it. */
const PAST_EXPIRY_DAYS = 3;
/** The `future` expiry: a year after seeding starts, far beyond the seed's end. */
const FUTURE_EXPIRY_DAYS = 365;

/** Market parameters in Pendle's 1e18 fixed point: a typical scalar root, an anchor near a 5 % rate, a small fee. */
const SCALAR_ROOT = 20n * 10n ** 18n;
const INITIAL_ANCHOR = 105n * 10n ** 16n;
const LN_FEE_RATE_ROOT = 3n * 10n ** 14n;

/** Whole USDC each holder splits into PT and YT per expiry, and puts into the market as SY and as PT. */
const SPLIT_USDC = 1_000;
const LP_SY_USDC = 400;
const LP_PT_USDC = 600;
/** USDC donated to the vault after the split: its share price, hence the SY exchange rate, rises 10 %. */
const VAULT_SEED_USDC = 10_000;
const YIELD_USDC = 1_000;

/** What the deployment of one chain is, and how a holder's positions are opened in it. */
export interface PendleDeployment extends Omit<ManifestPendle, "holders"> {}

const usdc = (whole: number) => units(whole, tokenDecimals("USDC"));

/**
 * Opens `holder`'s Pendle positions in `batch` (the deployer pays for everything, so the holder needs
 * neither ether nor impersonation): PT and YT of every expiry, split from {@link SPLIT_USDC} USDC
 * deposited into the SY straight to the YT, and LP of each market minted from SY and PT the deployer
 * splits for it. The deployer must have approved the SY for USDC (seedPendle does).
 */
export const openPendlePositions = async (
  batch: TxBatch,
  deployment: PendleDeployment,
  holder: Address,
): Promise<void> => {
  const deployer = roleAddress("deployer");
  const sy = deployment.sy as Address;
  const depositTo = (receiver: Address, whole: number) =>
    batch.send({
      from: deployer,
      address: sy,
      abi: pendleSyAbi,
      functionName: "deposit",
      args: [receiver, deployment.asset as Address, usdc(whole), 0n],
    });
  const mint = (yt: string, receiverPt: Address, receiverYt: Address) =>
    batch.send({
      from: deployer,
      address: yt as Address,
      abi: pendleYieldTokenAbi,
      functionName: "mintPY",
      args: [receiverPt, receiverYt],
      gas: 3_000_000n,
    });
  for (const { yt, market } of deployment.expiries) {
    await depositTo(yt as Address, SPLIT_USDC);
    await mint(yt, holder, holder);
    if (market === null) continue;
    // LP: PT split for the market (its YT stays with the deployer) and SY, both sent in before `mint`.
    await depositTo(yt as Address, LP_PT_USDC);
    await mint(yt, market as Address, deployer);
    await depositTo(market as Address, LP_SY_USDC);
    await batch.send({
      from: deployer,
      address: market as Address,
      abi: pendleMarketAbi,
      functionName: "mint",
      // Less than was sent in (SY is worth more than a dollar once the vault has grown): `mint` uses at most these.
      args: [holder, (usdc(LP_SY_USDC) * 8n) / 10n, usdc(LP_PT_USDC)],
      gas: 3_000_000n,
    });
  }
};

/**
 * Deploys Pendle V2 from `@pendle/core-v2@4.7.2` on ethereum, base and optimism (null elsewhere), in
 * three blocks: (1) a dedicated devnet ERC-4626 vault over USDC, `PendleERC4626SY` over it, the yield
 * contract factory (YT creation code split in two code contracts), a gauge controller exposing
 * `pendle()` and vePendle (the devnet's UNI standing in for PENDLE), the market factory, and PT + YT
 * for the `past` and `future` expiries; (2) the market of the `future` PT; (3) the positions of
 * `holders` (openPendlePositions), then a USDC donation to the vault, so every YT holder has interest
 * accrued. Seeding continues a month past the `past` expiry.
 */
export const seedPendle = async (
  client: ChainClient,
  contracts: DeployedContracts,
  compiled: CompiledContracts,
  holders: readonly Address[],
): Promise<ManifestPendle | null> => {
  if (!PENDLE_CHAINS.has(client.chainId)) return null;
  const deployer = roleAddress("deployer");
  const asset = contracts.tokens.USDC;
  const vaultCode = compiled.DevVault?.bytecode;
  if (vaultCode === undefined) throw new Error("contract DevVault missing from the solc build");
  const now = Number((await client.publicClient.getBlock()).timestamp);
  const expiryAfter = (days: number) => (Math.floor(now / DAY) + days) * DAY;
  const expiries = { past: expiryAfter(PAST_EXPIRY_DAYS), future: expiryAfter(FUTURE_EXPIRY_DAYS) };

  // Ether for gas, so a holder can move its tokens itself (the tests do); a holder with more keeps it.
  for (const holder of holders) {
    const balance = await client.publicClient.getBalance({ address: holder });
    if (balance < parseEther("1"))
      await client.rpc("anvil_setBalance", [holder, numberToHex(parseEther("1"))]);
  }
  const setup = await openTxBatch(client);
  const vault = await setup.deploy(
    deployer,
    encodeDeployData({
      abi: devVaultAbi,
      bytecode: vaultCode,
      args: [asset, "Devnet Pendle USDC Vault", "dpUSDC"],
    }),
  );
  await setup.send({
    from: deployer,
    address: asset,
    abi: erc20Abi,
    functionName: "approve",
    args: [vault, maxUint256],
  });
  await setup.send({
    from: deployer,
    address: vault,
    abi: devVaultAbi,
    functionName: "deposit",
    args: [usdc(VAULT_SEED_USDC), deployer],
  });
  const sy = await setup.deploy(
    deployer,
    encodeDeployData({
      abi: pendleSyAbi,
      bytecode: pendleBytecode("ERC4626SY"),
      args: ["SY Devnet Pendle USDC Vault", "SY-dpUSDC", vault],
    }),
  );
  await setup.send({
    from: deployer,
    address: asset,
    abi: erc20Abi,
    functionName: "approve",
    args: [sy, maxUint256],
  });
  const ytCode = splitCreationCode(pendleBytecode("YieldToken"));
  const ytA = await setup.deploy(deployer, ytCode.a);
  const ytB = await setup.deploy(deployer, ytCode.b);
  const yieldFactory = await setup.deploy(
    deployer,
    encodeDeployData({
      abi: pendleYieldFactoryAbi,
      bytecode: pendleBytecode("YieldContractFactory"),
      args: [ytA, ytCode.sizeA, ytB, ytCode.sizeB],
    }),
  );
  await setup.send({
    from: deployer,
    address: yieldFactory,
    abi: pendleYieldFactoryAbi,
    functionName: "initialize",
    args: [BigInt(DAY), 0n, 0n, deployer],
  });
  const oracleLib = await setup.deploy(deployer, pendleBytecode("OracleLib"));
  const marketCode = splitCreationCode(pendleBytecode("MarketV3", { OracleLib: oracleLib }));
  const marketA = await setup.deploy(deployer, marketCode.a);
  const marketB = await setup.deploy(deployer, marketCode.b);
  const pendle = contracts.tokens.UNI;
  const vePendle = await setup.deploy(
    deployer,
    encodeDeployData({
      abi: pendleVotingEscrowAbi,
      bytecode: pendleBytecode("VotingEscrow"),
      args: [pendle, deployer, 0n],
    }),
  );
  // The gauge controller and the market factory name each other: the controller is deployed first,
  // naming the factory at the address the deployer's next nonce gives it.
  const nonce = await client.publicClient.getTransactionCount({ address: deployer, blockTag: "pending" });
  const predictedFactory = getContractAddress({
    from: deployer,
    nonce: BigInt(nonce + 1),
  }).toLowerCase() as Address;
  const gaugeController = await setup.deploy(
    deployer,
    encodeDeployData({
      abi: pendleGaugeControllerAbi,
      bytecode: pendleBytecode("GaugeController"),
      args: [deployer, pendle, predictedFactory, predictedFactory],
    }),
  );
  const marketFactory = await setup.deploy(
    deployer,
    encodeDeployData({
      abi: pendleMarketFactoryAbi,
      bytecode: pendleBytecode("MarketFactoryV3"),
      args: [
        yieldFactory,
        marketA,
        marketCode.sizeA,
        marketB,
        marketCode.sizeB,
        deployer,
        0,
        vePendle,
        gaugeController,
      ],
    }),
  );
  if (marketFactory !== predictedFactory)
    throw new Error("Pendle market factory not at its predicted address");
  for (const expiry of Object.values(expiries))
    await setup.send({
      from: deployer,
      address: yieldFactory,
      abi: pendleYieldFactoryAbi,
      functionName: "createYieldContract",
      args: [sy, expiry, false],
      // Deploys PT and YT: far more than the batch's default call gas.
      gas: 12_000_000n,
    });
  await setup.mine();

  const read = (functionName: "getPT" | "getYT", expiry: number) =>
    client.publicClient.readContract({
      address: yieldFactory,
      abi: pendleYieldFactoryAbi,
      functionName,
      args: [sy, BigInt(expiry)],
    });
  const future = { pt: await read("getPT", expiries.future), yt: await read("getYT", expiries.future) };
  const past = { pt: await read("getPT", expiries.past), yt: await read("getYT", expiries.past) };

  const marketBatch = await openTxBatch(client);
  await marketBatch.send({
    from: deployer,
    address: marketFactory,
    abi: pendleMarketFactoryAbi,
    functionName: "createNewMarket",
    args: [future.pt, SCALAR_ROOT, INITIAL_ANCHOR, LN_FEE_RATE_ROOT],
    gas: 10_000_000n,
  });
  await marketBatch.mine();
  const created = await client.publicClient.getContractEvents({
    address: marketFactory,
    abi: pendleMarketFactoryAbi,
    eventName: "CreateNewMarket",
  });
  const market = created[0]?.args.market;
  if (market === undefined) throw new Error("Pendle market not created");

  const deployment: PendleDeployment = {
    protocol: PENDLE_PROTOCOL,
    yield_contract_factory: yieldFactory,
    market_factory: marketFactory,
    gauge_controller: gaugeController,
    ve_pendle: vePendle,
    vault,
    sy,
    asset: asset.toLowerCase(),
    expiries: [
      {
        purpose: "past",
        expiry: expiries.past,
        pt: past.pt.toLowerCase(),
        yt: past.yt.toLowerCase(),
        market: null,
      },
      {
        purpose: "future",
        expiry: expiries.future,
        pt: future.pt.toLowerCase(),
        yt: future.yt.toLowerCase(),
        market: market.toLowerCase(),
      },
    ],
  };
  const positions = await openTxBatch(client);
  for (const holder of holders) await openPendlePositions(positions, deployment, holder);
  await positions.send({
    from: deployer,
    address: asset,
    abi: erc20Abi,
    functionName: "transfer",
    args: [vault, usdc(YIELD_USDC)],
  });
  await positions.mine();
  return { ...deployment, holders: [...holders] };
};
