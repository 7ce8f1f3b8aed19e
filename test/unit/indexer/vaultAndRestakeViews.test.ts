import { describe, expect, it } from "vitest";
import { ChainConfig, NativeAsset, ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import { planBlock, planRevert } from "../../../src/indexer/applyBlock.js";
import { makeIndexReader } from "../../../src/indexer/IndexReader.js";
import type { Db } from "../../../src/storage/Level.js";
import { blockHash, blockWithLogs, memoryDb } from "../../support/indexerBlocks.js";
import { ALICE, BOB, encodeLog, WETH } from "../decoding/fixtures.js";

const MANAGER = "0x858646372cc42e1a627fce94aa7a7033e7cf075a";
const STRATEGY = "0x93c4b944d05dfe6df7645a86cd2206016c51564d";
const ROGUE = "0x0bad000000000000000000000000000000000bad";
const USDC = "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48";
const VAULT = "0x83f20f44975d03b1b09e64809b757c47f942beea";

const EVENTS = {
  transfer: "event Transfer(address indexed from, address indexed to, uint256 value)",
  deposit: "event Deposit(address staker, address token, address strategy, uint256 shares)",
} as const;

const chain = ChainConfig.make({
  chain_id: 1,
  name: "ethereum",
  rpc_url: "http://127.0.0.1:1",
  tags: ["default"],
  native: NativeAsset.make({ symbol: "ETH", name: "Ether", decimals: 18 }),
  wrapped_native: WETH,
  stablecoins: [],
  tokens: [],
  quote_tokens: [],
  protocols: [ProtocolConfig.make({ protocol: "EigenLayer", kind: "restake", address: MANAGER })],
  logos: {},
  urls: {},
  traces: false,
  confirmations: 0,
  finality_depth: 4,
});

/** Applies a block; the probe answers VAULT's asset as USDC and records every token it was asked about. */
const applyWith = (probed: Array<string>) => async (db: Db, b: ChainBlock) =>
  db.batch([
    ...(await planBlock(db, chain, b, {
      metadata: async (tokens) => tokens.map(() => ({ name: null, symbol: null, decimals: 18 })),
      vaults: async (tokens) => {
        probed.push(...tokens);
        return tokens.map((token) => (token === VAULT ? USDC : null));
      },
      underlying: async (contracts) => contracts.map(() => null),
    })),
  ]);

const transfer = (token: string, to: string) =>
  encodeLog(EVENTS.transfer, { from: BOB, to, value: 1n }, { address: token });
const deposit = (emitter: string, staker: string) =>
  encodeLog(EVENTS.deposit, { staker, token: USDC, strategy: STRATEGY, shares: 5n }, { address: emitter });

describe("vault probes", () => {
  it("default: each token a wallet touches is probed once, and the index answers its asset or not a vault", async () => {
    const db = memoryDb();
    const probed: Array<string> = [];
    const apply = applyWith(probed);
    await apply(db, blockWithLogs(10, [transfer(VAULT, ALICE), transfer(USDC, ALICE)]));
    await apply(db, blockWithLogs(11, [transfer(VAULT, BOB), transfer(USDC, ALICE)]));
    expect(probed.sort()).toEqual([USDC, VAULT].sort());
    expect(await makeIndexReader(db).vaultProbes(1, [VAULT, USDC, ROGUE])).toEqual([
      { asset: USDC },
      { asset: null },
      undefined,
    ]);
  });

  it("behavior: a reorg of the block that probed a token removes the answer, and the new branch probes it again", async () => {
    const db = memoryDb();
    const probed: Array<string> = [];
    const apply = applyWith(probed);
    await apply(db, blockWithLogs(10, []));
    await apply(db, blockWithLogs(11, [transfer(VAULT, ALICE)]));
    await db.batch([...(await planRevert(db, 1, [{ number: 11 }], { number: 10, hash: blockHash(10) }))]);
    expect(await makeIndexReader(db).vaultProbes(1, [VAULT])).toEqual([undefined]);
    await apply(db, blockWithLogs(11, [transfer(VAULT, BOB)]));
    expect(probed).toEqual([VAULT, VAULT]);
    expect(await makeIndexReader(db).vaultProbes(1, [VAULT])).toEqual([{ asset: USDC }]);
  });
});

describe("restaking deposits", () => {
  it("default: a registry StrategyManager's Deposit records the staker's strategy and token; another contract's is ignored", async () => {
    const db = memoryDb();
    const apply = applyWith([]);
    await apply(db, blockWithLogs(10, [deposit(MANAGER, ALICE), deposit(ROGUE, BOB)]));
    await apply(db, blockWithLogs(11, [deposit(MANAGER, ALICE)]));
    const reader = makeIndexReader(db);
    expect(await reader.restakeDeposits(ALICE)).toEqual([
      { chain_id: 1, manager: MANAGER, strategy: STRATEGY, token: USDC, block: 10 },
    ]);
    expect(await reader.restakeDeposits(BOB)).toEqual([]);
  });

  it("behavior: a reorg removes a deposit its blocks added", async () => {
    const db = memoryDb();
    const apply = applyWith([]);
    await apply(db, blockWithLogs(10, []));
    await apply(db, blockWithLogs(11, [deposit(MANAGER, ALICE)]));
    await db.batch([...(await planRevert(db, 1, [{ number: 11 }], { number: 10, hash: blockHash(10) }))]);
    expect(await makeIndexReader(db).restakeDeposits(ALICE)).toEqual([]);
  });
});
