import { readFile } from "node:fs/promises";
import { Effect } from "effect";
import { type Address, type Hex, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeChainsConfigFile } from "../../../src/chains/ChainsConfig.js";
import { v4PoolId } from "../../../src/devnet/poolMath.js";
import { startTestDevnet, type TestDevnet } from "../../support/devnetFixture.js";
import {
  abi,
  algebraPositionsAbi,
  clientFor,
  collectable,
  id,
  int24At,
  ofKind,
  rangeStatus,
  v4Fees,
  withPositions,
} from "./positionReads.js";

let env: TestDevnet;

// A first seed on a busy 2-core machine can take longer than the default hook timeout.
beforeAll(async () => {
  env = await startTestDevnet();
}, 600_000);

afterAll(async () => {
  await env?.stop();
});

const seededChains = () => withPositions(env.manifest);

describe("devnet V4 and Algebra positions", () => {
  it("behavior: V4 positions sit in a native-ETH pool and in a pool whose hook counted the swaps, in range, with fees", async () => {
    for (const chain of seededChains()) {
      const client = clientFor(chain);
      const stateView = chain.contracts.uniswap_v4_state_view as Address;
      const hook = chain.contracts.uniswap_v4_swap_counter_hook as Address;
      for (const p of ofKind(chain, "v4")) {
        const manager = p.position_manager as Address;
        expect(manager).toBe(chain.contracts.uniswap_v4_position_manager);
        const [key, info] = await client.readContract({
          address: manager,
          abi,
          functionName: "getPoolAndPositionInfo",
          args: [id(p)],
        });
        if (p.purpose === "burned") {
          expect(
            await client.readContract({
              address: manager,
              abi,
              functionName: "getPositionLiquidity",
              args: [id(p)],
            }),
          ).toBe(0n);
          continue;
        }
        expect(
          await client.readContract({ address: manager, abi, functionName: "ownerOf", args: [id(p)] }),
        ).toBe(p.owner);
        expect(v4PoolId(key)).toBe(p.pool);
        expect([int24At(info, 8), int24At(info, 32)]).toEqual([p.tick_lower, p.tick_upper]);
        expect(
          await client.readContract({
            address: manager,
            abi,
            functionName: "getPositionLiquidity",
            args: [id(p)],
          }),
        ).toBeGreaterThan(0n);
        const [, tick] = await client.readContract({
          address: stateView,
          abi,
          functionName: "getSlot0",
          args: [p.pool as Hex],
        });
        expect(rangeStatus(tick, p.tick_lower!, p.tick_upper!)).toBe("in_range");
        const [fees0, fees1] = await v4Fees(client, chain, p);
        expect(fees0 > 0n && fees1 > 0n, `${chain.name} ${p.purpose} fees`).toBe(true);
        if (p.purpose === "native_eth") {
          expect(key.currency0).toBe(zeroAddress);
          expect(key.hooks).toBe(zeroAddress);
        } else {
          expect(key.hooks.toLowerCase()).toBe(hook.toLowerCase());
          // The PoolManager only calls hooks whose flag bits are in the address: AFTER_SWAP_FLAG alone.
          expect(BigInt(hook) & 0x3fffn).toBe(0x40n);
          const swaps = await client.readContract({
            address: hook,
            abi,
            functionName: "swapCount",
            args: [p.pool as Hex],
          });
          expect(swaps).toBe(6n);
        }
      }
    }
  });

  it("behavior: Algebra NFTs on base come from the registered Algebra factory's pool, are in range and earned fees", async () => {
    const chain = seededChains().find((c) => c.chain_id === 8453)!;
    const client = clientFor(chain);
    const algebra = ofKind(chain, "algebra");
    expect(algebra).toHaveLength(2);
    for (const p of algebra) {
      const manager = p.position_manager as Address;
      expect(manager).toBe(chain.contracts.algebra_position_manager);
      expect(
        await client.readContract({ address: manager, abi, functionName: "ownerOf", args: [id(p)] }),
      ).toBe(p.owner);
      const [, , token0, token1, deployer, lower, upper, liquidity] = await client.readContract({
        address: manager,
        abi: algebraPositionsAbi,
        functionName: "positions",
        args: [id(p)],
      });
      expect(deployer).toBe(zeroAddress);
      expect([lower, upper]).toEqual([p.tick_lower, p.tick_upper]);
      expect(liquidity).toBeGreaterThan(0n);
      const pool = await client.readContract({
        address: chain.contracts.algebra_factory as Address,
        abi,
        functionName: "poolByPair",
        args: [token0, token1],
      });
      expect(pool).toBe(p.pool);
      const [, tick] = await client.readContract({ address: pool, abi, functionName: "globalState" });
      expect(rangeStatus(tick, lower, upper)).toBe("in_range");
      const [fees0, fees1] = await collectable(client, p);
      expect(fees0 > 0n && fees1 > 0n).toBe(true);
    }
    const config = await Effect.runPromise(
      decodeChainsConfigFile(JSON.parse(await readFile(env.devnet.chainsConfigPath, "utf8"))),
    );
    const registry = (chainId: number) =>
      config.chains.find((c) => c.chain_id === chainId)!.protocols.filter((p) => p.kind === "algebra");
    expect(registry(8453).map((p) => [p.protocol, p.address, p.position_manager])).toEqual([
      ["AlgebraIntegral", chain.contracts.algebra_factory, chain.contracts.algebra_position_manager],
    ]);
    expect(registry(1)).toEqual([]);
    for (const other of env.manifest.chains.filter((c) => c.chain_id !== 8453)) {
      expect(ofKind(other, "algebra")).toEqual([]);
      expect(other.contracts.algebra_factory).toBeUndefined();
    }
  });
});
