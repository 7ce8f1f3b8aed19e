import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readChainHoldings } from "../../../src/balances/readChainHoldings.js";
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from "../../../src/devnet/multicall3.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import { readBalances } from "../../../src/webhooks/notifier/readBalances.js";
import { anvilFixture } from "../../support/anvil.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { nodeCall } from "../../support/chainNode.js";
import { directChainRpc } from "../../support/chainRpc.js";
import { memoryDb } from "../../support/indexerBlocks.js";

/*
 * Anyone can make a wallet "touch" a token: a contract that emits a Transfer naming the wallet. If
 * that contract's balanceOf burns all the gas it is given, each one in a plain Multicall3 batch
 * takes 63/64 of the gas left, and three of them made the wallet's whole read on the chain run out
 * of gas. Each balance is now read with a gas cap of its own.
 */

/** `balanceOf(anyone)` answers storage slot 0. */
const SLOT_ZERO_TOKEN: Hex = "0x60005460005260206000f3";
/** Loops until its gas runs out. */
const GAS_BURNER: Hex = "0x5b600056";

const CHAIN_ID = 31337;
const WALLET = `0x${"77".repeat(20)}`;
const addressAt = (i: number) => `0x${(0x200000 + i).toString(16).padStart(40, "0")}`;
const node = anvilFixture({ chainId: CHAIN_ID });

beforeAll(async () => {
  await node.start();
  const url = node.node().rpcUrl;
  await nodeCall(url, "anvil_setCode", [MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE]);
});
afterAll(() => node.stop());

describe("balances of a wallet sent tokens that burn gas", { timeout: 120_000 }, () => {
  it("error: ten tokens whose balanceOf burns all its gas cost their own entries only; the real ones are read exactly, for balances and for balance webhooks", async () => {
    const url = node.node().rpcUrl;
    const held = [addressAt(1), addressAt(20), addressAt(40)];
    // Five between the first and second token, five between the second and third.
    const burners = [2, 3, 4, 5, 6, 31, 32, 33, 34, 35].map(addressAt);
    for (const [i, token] of held.entries()) {
      await nodeCall(url, "anvil_setCode", [token, SLOT_ZERO_TOKEN]);
      await nodeCall(url, "anvil_setStorageAt", [
        token,
        "0x0",
        `0x${(1_000n + BigInt(i)).toString(16).padStart(64, "0")}`,
      ]);
    }
    for (const token of burners) await nodeCall(url, "anvil_setCode", [token, GAS_BURNER]);
    const { rpc, close } = directChainRpc(url, { chainId: CHAIN_ID });
    try {
      const head = Number.parseInt((await nodeCall(url, "eth_blockNumber", [])) as string, 16);
      const holdings = await readChainHoldings(rpc, makeIndexReader(memoryDb()), {
        chain: testChainConfig({ chain_id: CHAIN_ID, rpc_url: url, tokens: [], stablecoins: [] }),
        wallet: WALLET,
        block: { number: head },
        // In address order, as a wallet's touched tokens are read: the burners between the real ones.
        tokens: [...held, ...burners].sort(),
      });
      const amounts = Object.fromEntries(holdings.holdings.map((h) => [h.address, h.amount]));
      expect(amounts).toEqual({ [held[0]!]: 1_000n, [held[1]!]: 1_001n, [held[2]!]: 1_002n });

      // A block's balance webhooks read every watched wallet's touched tokens together: the
      // burners sent to one wallet must not fail the read for the others.
      await nodeCall(url, "evm_mine", []);
      const block = (await nodeCall(url, "eth_getBlockByNumber", ["latest", false])) as {
        number: string;
        hash: string;
        parentHash: string;
      };
      const other = `0x${"88".repeat(20)}`;
      const reads = await readBalances(
        rpc,
        makeIndexReader(memoryDb()),
        testChainConfig({ chain_id: CHAIN_ID, rpc_url: url, tokens: [], stablecoins: [] }),
        [
          ...burners.map((token) => ({ wallet: WALLET, token })),
          { wallet: WALLET, token: held[1]! },
          { wallet: other, token: held[2]! },
          { wallet: other, token: "native" },
        ],
        { number: Number.parseInt(block.number, 16), hash: block.hash, parent_hash: block.parentHash },
      );
      expect(reads.get(`${WALLET}|${held[1]}`)?.after).toBe(1_001n);
      expect(reads.get(`${other}|${held[2]}`)?.before).toBe(1_002n);
      expect(reads.get(`${WALLET}|${burners[0]}`)?.after).toBe(0n);
    } finally {
      await close();
    }
  });
});
