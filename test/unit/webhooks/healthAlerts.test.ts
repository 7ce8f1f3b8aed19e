import { describe, expect, it } from "vitest";
import { ProtocolConfig } from "../../../src/chains/ChainsConfig.js";
import type { Position } from "../../../src/contracts/Positions.js";
import type { ChainBlock } from "../../../src/domain/ChainBlock.js";
import type { LendingToken } from "../../../src/indexer/IndexRecords.js";
import { memoryAlertStates } from "../../../src/webhooks/alerts/AlertStates.js";
import { healthAlerts } from "../../../src/webhooks/alerts/healthAlerts.js";
import type { HealthAccount } from "../../../src/webhooks/alerts/healthCalls.js";
import { debtBook } from "../../../src/webhooks/alerts/knownDebts.js";
import {
  type PositionAlertDeps,
  type PositionWatcher,
  positionsAround,
} from "../../../src/webhooks/alerts/positionAlerts.js";
import { alertBlock, answerUpdated, logOf, word } from "../../support/alertBlocks.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { webhookRecord } from "../../support/webhookRecordFixture.js";

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const POOL = address(0xa1);
const COMPTROLLER = address(0xc0);
const CTOKEN = address(0xc1);
const COMET = address(0xd0);
const FEED = address(0xfeed);
const BORROWER = address(0xb0b0_0001);
const SAVER = address(0xb0b0_0002);

const chain = testChainConfig({
  protocols: [
    ProtocolConfig.make({ protocol: "AaveV3", kind: "aave_v3", address: POOL }),
    ProtocolConfig.make({ protocol: "ForkLend", kind: "ctoken", address: COMPTROLLER }),
    ProtocolConfig.make({ protocol: "CompoundV3", kind: "comet", address: COMET }),
  ],
});
const watchers: ReadonlyArray<PositionWatcher> = [
  {
    record: webhookRecord({ id: "w1", type: "positions", conditions: { health_factor_below: 1.1 } }),
    wallets: [BORROWER, SAVER],
  },
];

/** The wallet's entries as the positions endpoint would show them: one per market. */
const POSITIONS = [
  { type: "Tokenized", token: address(0xa7), lending_pool: POOL },
  { type: "LendingV2Fork", token: CTOKEN, token_type: "Borrow" },
  { type: "LendingV3", market: COMET },
] as unknown as ReadonlyArray<Position>;

/**
 * Deps over fakes: the borrower has debt in the comptroller only, its health factor `health` by
 * block number (1.5 otherwise); every call of readHealth is recorded.
 */
const fakeDeps = (health: Record<number, number> = {}) => {
  const reads: Array<ReadonlyArray<string>> = [];
  const numberOf = new Map<string, number>();
  const deps = {
    debts: debtBook(),
    states: memoryAlertStates(),
    readHealth: async (_chain: unknown, accounts: ReadonlyArray<HealthAccount>, at: { number: number }) => {
      reads.push(accounts.map((a) => `${a.wallet === BORROWER ? "borrower" : "saver"}@${a.design}`));
      return accounts.map(({ wallet, pool }) => ({
        wallet,
        pool,
        healthFactor: wallet === BORROWER && pool === COMPTROLLER ? (health[at.number] ?? 1.5) : null,
      }));
    },
    readPositions: async () => POSITIONS,
    lendingToken: async (_chainId: number, token: string): Promise<LendingToken | undefined> =>
      token === CTOKEN
        ? { kind: "ctoken", market: COMPTROLLER, side: "supply", asset: address(0xe1) }
        : undefined,
  } as unknown as PositionAlertDeps;
  const run = (block: ChainBlock) => {
    numberOf.set(block.hash, block.number);
    return healthAlerts(deps, chain, block, watchers, positionsAround(deps, chain, block));
  };
  return { reads, run };
};

describe("health alerts of cToken and Comet markets", () => {
  it("default: the first evaluated block reads every wallet in every market; an oracle-only block then reads only accounts with debt", async () => {
    const { reads, run } = fakeDeps();
    await run(alertBlock(1, { logs: [answerUpdated(FEED)] }));
    expect(reads).toEqual([
      ["borrower@aave", "borrower@ctoken", "borrower@comet", "saver@aave", "saver@ctoken", "saver@comet"],
    ]);
    await run(alertBlock(2, { logs: [answerUpdated(FEED)] }));
    expect(reads[1]).toEqual(["borrower@ctoken"]);
  });

  it("behavior: a block without a price event or a market's log reads nothing, and the known debts go on", async () => {
    const { reads, run } = fakeDeps();
    await run(alertBlock(1, { logs: [answerUpdated(FEED)] }));
    await run(alertBlock(2, { logs: [logOf(address(0xee), [`0x${"e".repeat(64)}`])] }));
    await run(alertBlock(3, { logs: [logOf(COMET, [`0x${"e".repeat(64)}`])] }));
    expect(reads).toHaveLength(1);
  });

  it("behavior: a block naming a wallet without debt reads it again in every market", async () => {
    const { reads, run } = fakeDeps();
    await run(alertBlock(1, { logs: [answerUpdated(FEED)] }));
    const borrow = logOf(CTOKEN, [`0x${"b".repeat(64)}`], [word(SAVER)]);
    await run(alertBlock(2, { logs: [borrow] }));
    expect(reads[1]).toEqual(["borrower@ctoken", "saver@aave", "saver@ctoken", "saver@comet"]);
  });

  it("behavior: a block that does not continue the last one evaluated (a restart, another process's blocks) reads everything", async () => {
    const { reads, run } = fakeDeps();
    await run(alertBlock(1, { logs: [answerUpdated(FEED)] }));
    await run(alertBlock(3, { logs: [answerUpdated(FEED)] }));
    expect(reads[1]).toHaveLength(6);
  });

  it("behavior: a cToken crossing alerts under its comptroller with the comptroller's entries only", async () => {
    const { reads, run } = fakeDeps({ 2: 1.05 });
    await run(alertBlock(1, { logs: [answerUpdated(FEED)] }));
    const alerts = await run(alertBlock(2, { logs: [answerUpdated(FEED)] }));
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.event).toMatchObject({
      subscribed_address: BORROWER,
      protocol: "ForkLend",
      lending_pool: COMPTROLLER,
      health_factor: 1.05,
      health_factor_before: 1.5,
      positions_after: [POSITIONS[1]],
      positions_before: [POSITIONS[1]],
    });
    // The block before is read for the crossing account only.
    expect(reads[2]).toEqual(["borrower@ctoken"]);
    await run(alertBlock(3, { logs: [answerUpdated(FEED)] }));
    expect(reads).toHaveLength(4);
  });
});
