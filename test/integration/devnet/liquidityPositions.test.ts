import { type Address, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManifestLiquidityPosition } from "../../../src/devnet/DevnetManifest.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import { abi, clientFor, collectable, id, ofKind, rangeStatus, withPositions } from "./positionReads.js";

let env: TestDevnet;

// A first seed on a busy 2-core machine can take longer than the default hook timeout.
beforeAll(async () => {
  env = await startTestDevnet();
}, 600_000);

afterAll(async () => {
  await env?.stop();
});

const seededChains = () => withPositions(env.manifest);
const live = (positions: ManifestLiquidityPosition[]) => positions.filter((p) => p.purpose !== "burned");
/** The range status each purpose promises; the others earn fees inside their range. */
const expectedStatus = (p: ManifestLiquidityPosition) =>
  p.purpose === "below_range" || p.purpose === "above_range" ? p.purpose : "in_range";

const EVERY_CHAIN = ["v2_lp", "fork_v2_lp", "in_range", "below_range", "above_range", "tokens_owed"]
  .concat(["native_eth", "hooked", "transferred", "burned"])
  .sort();

describe("devnet liquidity positions", () => {
  it("default: ethereum, base and optimism list every kind, base adds Algebra, ink has none", async () => {
    expect(seededChains().map((c) => c.chain_id)).toEqual([1, 8453, 10]);
    for (const chain of seededChains()) {
      const purposes = [...new Set(chain.liquidity_positions.map((p) => p.purpose))].sort();
      expect(purposes).toEqual(chain.chain_id === 8453 ? [...EVERY_CHAIN, "algebra"].sort() : EVERY_CHAIN);
      const client = clientFor(chain);
      for (const p of chain.liquidity_positions) {
        expect(chain.wallets[p.wallet], p.wallet).toBe(p.owner);
        expect(await client.getBalance({ address: p.owner as Address })).toBeGreaterThan(0n);
      }
    }
    const owners = new Set(seededChains().flatMap((c) => c.liquidity_positions.map((p) => p.owner)));
    for (const owner of owners) expect(env.manifest.accounts.map((a) => a.address)).toContain(owner);
  });

  it("behavior: the liquidity wallet holds LP tokens of the Uniswap V2 pair and of the fork's pair", async () => {
    for (const chain of seededChains()) {
      const client = clientFor(chain);
      const factories = { UniswapV2: "uniswap_v2_factory", SushiSwapV2: "sushiswap_v2_factory" } as const;
      const v2 = ofKind(chain, "v2");
      expect(v2.map((p) => [p.protocol, p.purpose])).toEqual([
        ["UniswapV2", "v2_lp"],
        ["SushiSwapV2", "fork_v2_lp"],
      ]);
      for (const p of v2) {
        const pair = p.pool as Address;
        const factory = await client.readContract({ address: pair, abi, functionName: "factory" });
        expect(factory.toLowerCase()).toBe(chain.contracts[factories[p.protocol as keyof typeof factories]]);
        const lp = await client.readContract({
          address: pair,
          abi,
          functionName: "balanceOf",
          args: [p.owner as Address],
        });
        expect(lp).toBeGreaterThan(0n);
      }
    }
  });

  it("behavior: V3 NFTs have their owners, ticks, liquidity and range; in-range ones earned fees, one keeps tokensOwed", async () => {
    for (const chain of seededChains()) {
      const client = clientFor(chain);
      for (const p of live(ofKind(chain, "v3"))) {
        const manager = p.position_manager as Address;
        expect(manager).toBe(chain.contracts.uniswap_v3_position_manager);
        expect(
          await client.readContract({ address: manager, abi, functionName: "ownerOf", args: [id(p)] }),
        ).toBe(p.owner);
        const [, , token0, token1, fee, lower, upper, liquidity, , , owed0, owed1] =
          await client.readContract({
            address: manager,
            abi,
            functionName: "positions",
            args: [id(p)],
          });
        expect([lower, upper]).toEqual([p.tick_lower, p.tick_upper]);
        expect(liquidity).toBeGreaterThan(0n);
        const pool = await client.readContract({
          address: chain.contracts.uniswap_v3_factory as Address,
          abi,
          functionName: "getPool",
          args: [token0, token1, fee],
        });
        expect(pool).toBe(p.pool);
        const [, tick] = await client.readContract({ address: pool, abi, functionName: "slot0" });
        expect(rangeStatus(tick, lower, upper), `${chain.name} ${p.purpose}`).toBe(expectedStatus(p));
        const [fees0, fees1] = await collectable(client, p);
        if (expectedStatus(p) === "in_range") {
          expect(fees0 > 0n && fees1 > 0n, `${chain.name} ${p.purpose} fees`).toBe(true);
        } else {
          // No swap reached an out-of-range position: nothing to collect.
          expect([fees0, fees1]).toEqual([0n, 0n]);
        }
        if (p.purpose === "tokens_owed") {
          expect(owed0 > 0n && owed1 > 0n).toBe(true);
          // Swaps after the partial collect added fees on top of what was already owed.
          expect(fees0 > owed0 && fees1 > owed1).toBe(true);
        } else expect([owed0, owed1]).toEqual([0n, 0n]);
      }
    }
  });

  it("behavior: one V3 NFT went from nft_sender to nft_receiver; the burned V3 and V4 NFTs no longer exist", async () => {
    for (const chain of seededChains()) {
      const client = clientFor(chain);
      const transfers = async (p: ManifestLiquidityPosition) =>
        (
          await client.getLogs({
            address: p.position_manager as Address,
            event: abi.find((item) => item.type === "event" && item.name === "Transfer")!,
            args: { tokenId: id(p) },
            fromBlock: 0n,
          })
        ).map((log) => [log.args.from, log.args.to]);
      const [sent] = chain.liquidity_positions.filter((p) => p.purpose === "transferred");
      expect(sent?.wallet).toBe("nft_receiver");
      expect(await transfers(sent!)).toEqual([
        [zeroAddress, chain.wallets.nft_sender],
        [chain.wallets.nft_sender, chain.wallets.nft_receiver],
      ]);
      const burned = chain.liquidity_positions.filter((p) => p.purpose === "burned");
      expect(burned.map((p) => p.kind).sort()).toEqual(["v3", "v4"]);
      for (const p of burned) {
        expect(p.owner).toBe(chain.wallets.nft_sender);
        await expect(
          client.readContract({
            address: p.position_manager as Address,
            abi,
            functionName: "ownerOf",
            args: [id(p)],
          }),
        ).rejects.toThrow();
        expect(await transfers(p)).toEqual([
          [zeroAddress, p.owner],
          [p.owner, zeroAddress],
        ]);
      }
    }
  });
});
