import { readFileSync } from "node:fs";
import { type Address, encodeAbiParameters, type Hex, parseAbi, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, positionManagerV3Abi } from "../../../src/devnet/abis.js";
import {
  approveMax,
  approveThroughPermit2,
  v3Mint,
  v4Initialize,
  v4Mint,
} from "../../../src/devnet/ammActions.js";
import { type ChainClient, chainClient, deploy, execute, send } from "../../../src/devnet/ChainClient.js";
import type { ManifestChain } from "../../../src/devnet/DevnetManifest.js";
import { type PoolKey, sqrtBigInt, v4PoolId } from "../../../src/devnet/poolMath.js";
import { type DevnetService, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { compileSolidity } from "../../support/solidity.js";

/**
 * The attacks of a hostile pool creator: a pool at ten times a token's price, made to look deep
 * with tokens that back no price (claims in the V4 pool manager, a donation to a V3 pool), and
 * a one-tick position that costs a few hundred dollars. Prices must not move and the fake pool
 * must never be the pricing pool.
 */

interface Quote {
  readonly price: number;
  readonly poolSize: number;
  readonly pool: string | undefined;
}

let env: DevnetService;

const chainOf = (id: number): ManifestChain => env.devnet.manifest.chains.find((c) => c.chain_id === id)!;
const tokenOf = (chain: ManifestChain, symbol: string) =>
  chain.tokens[symbol]!.address.toLowerCase() as Address;
const clientOf = (chain: ManifestChain): ChainClient =>
  chainClient(chain.chain_id, chain.name, chain.rpc_url);
const attackerOf = (chain: ManifestChain) => chain.wallets.deployer as Address;

/** The whale's entry for `address` on `chain`, priced, with the pool that set the price. */
const quote = async (chain: ManifestChain, address: string): Promise<Quote> => {
  const res = await env.get(
    `/v1/evm/balances/${chain.wallets.whale}?chain_ids=${chain.chain_id}&metadata=pools`,
  );
  const body = (await res.json()) as {
    balances: Array<{ address: string; price_usd?: number; pool_size?: number; pool?: { address: string } }>;
  };
  const entry = body.balances.find((b) => b.address === address)!;
  return { price: entry.price_usd!, poolSize: entry.pool_size ?? 0, pool: entry.pool?.address };
};

/** Waits until the service has indexed everything mined so far on `chain` (a marker transfer shows up). */
const indexed = async (chain: ManifestChain) => {
  const client = clientOf(chain);
  const marker = privateKeyToAccount(generatePrivateKey()).address.toLowerCase();
  await send(client, {
    from: attackerOf(chain),
    address: tokenOf(chain, "USDC"),
    abi: erc20Abi,
    functionName: "transfer",
    args: [marker as Address, 1n],
  });
  await eventually(
    async () => {
      const res = await env.get(`/v1/evm/balances/${marker}?chain_ids=${chain.chain_id}`);
      const body = (await res.json()) as { balances: Array<{ address: string }> };
      return body.balances.some((b) => b.address === tokenOf(chain, "USDC"));
    },
    30_000,
    `chain ${chain.chain_id} indexed`,
  );
};

/** sqrtPriceX96 of `usdPerToken` for a pool of (token, USDC) in address order. */
const sqrtPriceOf = (token: Address, tokenDecimals: number, usdc: Address, usdPerToken: number): bigint => {
  // Raw USDC per raw token, as a fraction scaled by 1e18 to keep the integer square root exact enough.
  const rawUsdcPerToken = (BigInt(Math.round(usdPerToken * 1e6)) * 10n ** 18n) / 10n ** BigInt(tokenDecimals);
  const price1in0Scaled = BigInt(token) < BigInt(usdc) ? rawUsdcPerToken : 10n ** 36n / rawUsdcPerToken;
  return sqrtBigInt((price1in0Scaled << 192n) / 10n ** 18n);
};

const tickAt = (sqrtPriceX96: bigint): number =>
  Math.floor(Math.log((Number(sqrtPriceX96) / 2 ** 96) ** 2) / Math.log(1.0001));

/** Liquidity for which a one-tick position at `tick` holds about `usdcValue` raw USDC when all in USDC. */
const oneTickLiquidity = (tick: number, usdcIsToken1: boolean, usdcValue: number): bigint => {
  const lower = 1.0001 ** (tick / 2);
  const upper = 1.0001 ** ((tick + 1) / 2);
  const perLiquidity = usdcIsToken1 ? upper - lower : 1 / lower - 1 / upper;
  return BigInt(Math.floor(usdcValue / perLiquidity));
};

/** A V4 pool (tick spacing 1, no hooks) of `symbol`/USDC opened at `usdPrice`, with a one-tick position worth ~`usd`. */
const fakeV4Pool = async (chain: ManifestChain, symbol: string, usdPrice: number, usd: number) => {
  const client = clientOf(chain);
  const from = attackerOf(chain);
  const token = tokenOf(chain, symbol);
  const usdc = tokenOf(chain, "USDC");
  const [currency0, currency1] = BigInt(token) < BigInt(usdc) ? [token, usdc] : [usdc, token];
  const key: PoolKey = { currency0, currency1, fee: 100, tickSpacing: 1, hooks: zeroAddress };
  const sqrtPriceX96 = sqrtPriceOf(token, chain.tokens[symbol]!.decimals, usdc, usdPrice);
  await v4Initialize(client, from, chain.contracts.uniswap_v4_pool_manager as Address, key, sqrtPriceX96);
  const positionManager = chain.contracts.uniswap_v4_position_manager as Address;
  for (const t of [token, usdc]) await approveThroughPermit2(client, from, t, positionManager);
  const tick = tickAt(sqrtPriceX96);
  await v4Mint(client, {
    from,
    positionManager,
    key,
    tickLower: tick,
    tickUpper: tick + 1,
    liquidity: oneTickLiquidity(tick, currency1 === usdc, usd * 1e6),
    amount0Max: 2n ** 127n,
    amount1Max: 2n ** 127n,
    owner: from,
  });
  return v4PoolId(key).toLowerCase();
};

const v3FactoryAdmin = parseAbi([
  "function enableFeeAmount(uint24 fee, int24 tickSpacing)",
  "function feeAmountTickSpacing(uint24 fee) view returns (int24)",
  "function getPool(address, address, uint24) view returns (address)",
]);

/** A V3 WETH/USDC pool (fee 0.01 %, tick spacing 1) at `usdPrice` with a one-tick position and `donation` USDC sent to it. */
const fakeV3Pool = async (chain: ManifestChain, usdPrice: number, usd: number, donation: bigint) => {
  const client = clientOf(chain);
  const from = attackerOf(chain);
  const factory = chain.contracts.uniswap_v3_factory as Address;
  const positionManager = chain.contracts.uniswap_v3_position_manager as Address;
  const weth = tokenOf(chain, "WETH");
  const usdc = tokenOf(chain, "USDC");
  const spacing = await client.publicClient.readContract({
    address: factory,
    abi: v3FactoryAdmin,
    functionName: "feeAmountTickSpacing",
    args: [100],
  });
  if (spacing === 0)
    await execute(client, {
      from,
      address: factory,
      abi: v3FactoryAdmin,
      functionName: "enableFeeAmount",
      args: [100, 1],
    });
  const [token0, token1] = BigInt(weth) < BigInt(usdc) ? [weth, usdc] : [usdc, weth];
  const sqrtPriceX96 = sqrtPriceOf(weth, 18, usdc, usdPrice);
  await execute(client, {
    from,
    address: positionManager,
    abi: positionManagerV3Abi,
    functionName: "createAndInitializePoolIfNecessary",
    args: [token0, token1, 100, sqrtPriceX96],
  });
  for (const t of [token0, token1]) await approveMax(client, from, t, positionManager);
  const tick = tickAt(sqrtPriceX96);
  // A position one tick wide around the price: amounts for about `usd` dollars of it.
  const usdcIsToken1 = token1 === usdc;
  const liquidity = oneTickLiquidity(tick, usdcIsToken1, usd * 1e6);
  const lower = 1.0001 ** (tick / 2);
  const upper = 1.0001 ** ((tick + 1) / 2);
  const s = Number(sqrtPriceX96) / 2 ** 96;
  const amount0 = BigInt(Math.ceil(Number(liquidity) * (1 / s - 1 / upper) * 1.01)) + 1n;
  const amount1 = BigInt(Math.ceil(Number(liquidity) * (s - lower) * 1.01)) + 1n;
  await v3Mint(client, {
    from,
    positionManager,
    token0,
    token1,
    fee: 100,
    tickLower: tick,
    tickUpper: tick + 1,
    amount0,
    amount1,
    recipient: from,
  });
  const pool = await client.publicClient.readContract({
    address: factory,
    abi: v3FactoryAdmin,
    functionName: "getPool",
    args: [weth, usdc, 100],
  });
  await send(client, {
    from,
    address: usdc,
    abi: erc20Abi,
    functionName: "transfer",
    args: [pool, donation],
  });
  return pool.toLowerCase();
};

/** Deposits `amount` of `token` into the chain's V4 pool manager as the attacker's ERC-6909 claims. */
const depositClaims = async (chain: ManifestChain, token: Address, amount: bigint) => {
  const client = clientOf(chain);
  const from = attackerOf(chain);
  const manager = chain.contracts.uniswap_v4_pool_manager as Address;
  const creation = compileSolidity(
    readFileSync(new URL("../../fixtures/ClaimDepositor.sol", import.meta.url), "utf8"),
  ).ClaimDepositor!;
  const depositor = await deploy(
    client,
    from,
    `${creation}${encodeAbiParameters([{ type: "address" }], [manager]).slice(2)}` as Hex,
  );
  await approveMax(client, from, token, depositor);
  await execute(client, {
    from,
    address: depositor,
    abi: parseAbi(["function deposit(address token, uint256 amount)"]),
    functionName: "deposit",
    args: [token, amount],
  });
};

const expectUnmoved = (before: Quote, after: Quote, fake: string) => {
  expect(Math.abs(after.price / before.price - 1)).toBeLessThan(0.01);
  expect(after.pool).not.toBe(fake);
};

beforeAll(async () => {
  env = await startDevnetService();
});

afterAll(async () => {
  await env?.stop();
});

describe("prices under manipulation", () => {
  it("behavior: a one-tick V4 WETH/USDC pool at 10x backed by 100k USDC of claims moves neither ETH nor WETH", async () => {
    const chain = chainOf(10);
    const weth = tokenOf(chain, "WETH");
    const before = await quote(chain, weth);
    const nativeBefore = await quote(chain, "native");
    const fake = await fakeV4Pool(chain, "WETH", before.price * 10, 330);
    await depositClaims(chain, tokenOf(chain, "USDC"), 100_000n * 10n ** 6n);
    await indexed(chain);
    const after = await quote(chain, weth);
    console.info(
      `chain 10 WETH: ${before.price.toFixed(2)} USD before the attack, ${after.price.toFixed(2)} USD after`,
    );
    expectUnmoved(before, after, fake);
    expect((await quote(chain, "native")).price).toBeCloseTo(nativeBefore.price, 6);
  });

  it("behavior: a $490 one-tick V4 UNI/USDC pool at $1,000 does not set UNI's price", async () => {
    const chain = chainOf(57073);
    const uni = tokenOf(chain, "UNI");
    const before = await quote(chain, uni);
    const fake = await fakeV4Pool(chain, "UNI", 1_000, 490);
    await indexed(chain);
    const after = await quote(chain, uni);
    console.info(
      `chain 57073 UNI: ${before.price.toFixed(4)} USD before the attack, ${after.price.toFixed(4)} USD after`,
    );
    expectUnmoved(before, after, fake);
  });

  it("behavior: a one-tick V3 pool at 10x with 3.5M USDC donated to it does not set WETH's price", async () => {
    const chain = chainOf(8453);
    const weth = tokenOf(chain, "WETH");
    const before = await quote(chain, weth);
    const fake = await fakeV3Pool(chain, before.price * 10, 330, 3_500_000n * 10n ** 6n);
    await indexed(chain);
    const after = await quote(chain, weth);
    console.info(
      `chain 8453 WETH: ${before.price.toFixed(2)} USD before the attack, ${after.price.toFixed(2)} USD after`,
    );
    expectUnmoved(before, after, fake);
  });
});
