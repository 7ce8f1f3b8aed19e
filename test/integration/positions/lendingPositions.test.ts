import { headers as natsHeaders } from "@nats-io/transport-node";
import { type Address, createTestClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManifestChain, ManifestLendingPosition } from "../../../src/devnet/DevnetManifest.js";
import { type DevnetService, devnetChains, startDevnetService } from "../../support/devnetService.js";
import { eventually } from "../../support/serviceHarness.js";
import { aaveSupplyFor, accrueInterest, dropAavePriceAndLiquidate } from "./lendingActions.js";
import { closeTo, type LendingEntry, lendingEntryFor, lendingReader } from "./lendingReference.js";

/**
 * The seeded lending positions of the devnet (docs/devnet.md, "Lending positions") through the
 * positions endpoint: every amount and health factor equal to the protocols' own view functions at the
 * block the service read, fork markets under their own protocol, and the answer following the chain as
 * interest accrues, an account is liquidated and a reorg takes a deposit away.
 */

type Entry = LendingEntry;
interface Body {
  positions: Entry[];
  aggregations: { total_usd_value: number; total_by_chain: Record<string, number> };
}

const CHAINS = [1, 8453, 10];
let env: DevnetService;
const { chainOf, clientOf } = devnetChains(() => env);
const positionsOf = (id: number, purpose?: ManifestLendingPosition["purpose"]) =>
  chainOf(id).lending_positions.filter((p) => purpose === undefined || p.purpose === purpose);
const ownerOf = (purpose: ManifestLendingPosition["purpose"]) => positionsOf(1, purpose)[0]!.owner;

const fetchPositions = async (wallet: string, chainIds = CHAINS): Promise<Body> => {
  const res = await env.get(`/beta/evm/defi/positions/${wallet}?chain_ids=${chainIds.join(",")}`);
  expect(res.status).toBe(200);
  return (await res.json()) as Body;
};

/** The answer and the head block of every chain it was read at (the service reads at its indexed head). */
const answerAtHead = async (wallet: string) => {
  const heads = new Map<number, bigint>();
  for (const id of CHAINS) heads.set(id, await clientOf(id).getBlockNumber());
  const body = await fetchPositions(wallet);
  for (const id of CHAINS)
    expect(await clientOf(id).getBlockNumber(), "nothing mined meanwhile").toBe(heads.get(id));
  return { body, heads };
};

/** Every seeded position of `owner` on every chain equals a direct read at the block the answer came from. */
const expectAmountsMatch = async (owner: string, body: Body, heads: Map<number, bigint>) => {
  let checked = 0;
  for (const id of CHAINS) {
    const chain = chainOf(id);
    const reader = lendingReader(clientOf(id), chain, heads.get(id)!);
    for (const position of chain.lending_positions.filter((p) => p.owner === owner)) {
      const expected = await reader.amount(position);
      const { entry, amount } = lendingEntryFor(body.positions, chain, position, reader.tokenOf(position));
      const what = `${chain.name} ${position.protocol} ${position.side} ${position.asset}`;
      if (expected === 0) {
        expect(amount, what).toBeUndefined();
        continue;
      }
      expect(entry, what).toBeDefined();
      expect(closeTo(amount!, expected), `${what}: ${amount} vs ${expected}`).toBe(true);
      checked++;
    }
  }
  return checked;
};

beforeAll(async () => {
  // These tests are about what the answers hold: on a machine busy with other devnets, a first answer
  // over three chains can take longer than the gateway's default 10 s.
  env = await startDevnetService({ requestTimeoutMs: 60_000 });
}, 900_000);

afterAll(async () => {
  await env?.stop();
});

describe("lending positions on the devnet", () => {
  it("default: the wallet in every market gets all four lending types on three chains, each amount equal to the protocol's own read", async () => {
    const wallet = ownerOf("every_market");
    const { body, heads } = await answerAtHead(wallet);
    const types = new Set(body.positions.map((e) => `${e.chain_id}:${e.type}`));
    for (const expected of [
      "1:Tokenized",
      "1:LendingV2",
      "1:LendingV3",
      "8453:Tokenized",
      "8453:LendingV2Fork",
    ])
      expect(types, expected).toContain(expected);
    for (const id of [8453, 10]) expect(types).not.toContain(`${id}:LendingV2`);
    expect(await expectAmountsMatch(wallet, body, heads)).toBeGreaterThanOrEqual(20);
    // Debt counts against the wallet: each entry's value is supply minus debt, and the totals add them up.
    const debts = body.positions.filter(
      (e) => e.token_type === "VariableDebtV3" || e.token_type === "Borrow",
    );
    expect(debts.length).toBeGreaterThan(0);
    for (const debt of debts) expect(debt.usd_value!).toBeLessThan(0);
    const sum = body.positions.reduce((s, e) => s + (e.usd_value ?? 0), 0);
    expect(closeTo(body.aggregations.total_usd_value, sum, 9)).toBe(true);
  });

  it("behavior: every seeded wallet's amounts match, and each health factor equals the protocol's own", async () => {
    for (const purpose of ["supplier", "borrower", "debt_only", "liquidated"] as const) {
      const owners = new Set(CHAINS.flatMap((id) => positionsOf(id, purpose).map((p) => p.owner)));
      for (const owner of owners) {
        const { body, heads } = await answerAtHead(owner);
        expect(await expectAmountsMatch(owner, body, heads), purpose).toBeGreaterThan(0);
        for (const id of CHAINS) {
          const reader = lendingReader(clientOf(id), chainOf(id), heads.get(id)!);
          for (const entry of body.positions.filter((e) => e.chain_id === id)) {
            const what = `${purpose} ${id} ${entry.type} ${entry.protocol ?? entry.lending_pool}`;
            if (entry.type === "Tokenized") {
              const expected = await reader.aaveHealth(entry.lending_pool!, owner);
              if (expected === null) expect(entry.health_factor, what).toBeNull();
              else expect(closeTo(entry.health_factor!, expected), what).toBe(true);
            } else if (entry.type === "LendingV2" || entry.type === "LendingV2Fork") {
              const market = chainOf(id).lending_markets.find((m) =>
                m.assets.some((a) => a.supply_token === entry.token),
              )!;
              const { health, shortfall } = await reader.cTokenHealth(market.address, owner);
              if (health === null) expect(entry.health_factor ?? null, what).toBeNull();
              else {
                expect(
                  closeTo(entry.health_factor!, health, 9),
                  `${what}: ${entry.health_factor} vs ${health}`,
                ).toBe(true);
                expect(health < 1, what).toBe(shortfall);
              }
            } else if (entry.type === "LendingV3") {
              const { health, liquidatable } = await reader.cometHealth(entry.market!, owner);
              if (health === null) expect(entry.health_factor ?? null, what).toBeNull();
              else {
                expect(
                  closeTo(entry.health_factor!, health, 9),
                  `${what}: ${entry.health_factor} vs ${health}`,
                ).toBe(true);
                expect(health < 1, what).toBe(liquidatable);
              }
            }
          }
        }
      }
    }
  });

  it("behavior: the borrower starts near health 1.2 and the liquidated wallet still owes after its liquidation", async () => {
    const borrower = await fetchPositions(ownerOf("borrower"), [8453]);
    const aave = borrower.positions.find((e) => e.type === "Tokenized" && e.token_type === "VariableDebtV3")!;
    expect(aave.health_factor!).toBeGreaterThan(1.1);
    expect(aave.health_factor!).toBeLessThan(1.21);
    expect(aave.borrow_apy!).toBeGreaterThan(0);
    const supplied = borrower.positions.find((e) => e.token_type === "SupplyTokenV3")!;
    expect(supplied.collateral_enabled).toBe(true);
    expect(supplied.supply_apy!).toBeGreaterThan(0);
    const liquidated = await fetchPositions(ownerOf("liquidated"), [1]);
    const owed = liquidated.positions.filter(
      (e) => e.token_type === "VariableDebtV2" || e.token_type === "VariableDebtV3",
    );
    expect(owed.map((e) => e.token_type).sort()).toEqual(["VariableDebtV2", "VariableDebtV3"]);
    for (const debt of owed) expect(debt.health_factor!).toBeGreaterThan(1);
  });

  it("behavior: cToken markets of the fork come out as LendingV2Fork under the fork's protocol, the original's as LendingV2", async () => {
    const body = await fetchPositions(ownerOf("every_market"));
    const cTokenEntries = body.positions.filter((e) => e.type.startsWith("LendingV2"));
    const byChain = (id: number) =>
      new Set(cTokenEntries.filter((e) => e.chain_id === id).map((e) => `${e.type}/${e.protocol}`));
    expect(byChain(1)).toEqual(new Set(["LendingV2/CompoundV2"]));
    expect(byChain(8453)).toEqual(new Set(["LendingV2Fork/ForkLend"]));
    expect(byChain(10)).toEqual(new Set(["LendingV2Fork/ForkLend"]));
    // Borrowing always costs; supplying earns only where someone borrows (so not in every market).
    for (const entry of cTokenEntries) {
      const what = `${entry.chain_id} ${entry.token_type} ${entry.token}`;
      if (entry.token_type === "Borrow") expect(entry.borrow_apy, what).toBeGreaterThan(0);
      else expect(entry.supply_apy, what).toBeGreaterThanOrEqual(0);
    }
    for (const id of CHAINS)
      expect(
        cTokenEntries.some((e) => e.chain_id === id && e.supply_apy! > 0),
        String(id),
      ).toBe(true);
  });

  it("behavior: the same request over NATS request/reply gets the same answer", async () => {
    const wallet = ownerOf("every_market");
    const viaHttp = await fetchPositions(wallet);
    const nc = await env.nats.connectAs("gateway");
    const headers = natsHeaders();
    headers.set("X-Svc-Api-Key", env.key);
    const reply = await nc.request(
      "svc.beta.evm.defi.positions.get",
      JSON.stringify({ params: { address: wallet }, query: { chain_ids: CHAINS.join(",") }, body: null }),
      { timeout: 30_000, headers },
    );
    expect(reply.headers?.get("Svc-Status")).toBe("200");
    expect(reply.json()).toEqual(viaHttp);
  });
});

describe("lending positions follow the chain", () => {
  it("behavior: a month later, supply and debt have grown by their interest and still equal the direct reads", async () => {
    const wallet = ownerOf("every_market");
    const before = await fetchPositions(wallet);
    for (const id of CHAINS) {
      const chain = chainOf(id);
      const test = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });
      await test.increaseTime({ seconds: 30 * 24 * 3600 });
      await accrueCTokenInterest(chain);
      await test.mine({ blocks: 1 });
    }
    const grown = async () => {
      const { body, heads } = await answerAtHead(wallet);
      return {
        body,
        heads,
        ok: body.positions.length === before.positions.length && amountsOf(body) > amountsOf(before),
      };
    };
    let after = await grown();
    await eventually(
      async () => {
        after = await grown();
        return after.ok;
      },
      30_000,
      "a month of interest indexed",
    );
    // Every debt grows; a supply grows where its market has borrowers, and never shrinks.
    for (const entry of before.positions) {
      const later = after.body.positions.find((e) => e.chain_id === entry.chain_id && sameLeg(e, entry))!;
      const what = `${entry.chain_id} ${entry.type} ${entry.token_type ?? ""} ${entry.token ?? entry.market}`;
      expect(later, what).toBeDefined();
      const [was, now] = [debtOf(entry), debtOf(later)];
      if (was > 0) expect(now, what).toBeGreaterThan(was);
      expect(suppliedOf(later), what).toBeGreaterThanOrEqual(suppliedOf(entry));
    }
    // The Comet wallet holds collateral and debt only: collateral earns nothing.
    for (const type of ["Tokenized", "LendingV2", "LendingV2Fork"]) {
      const total = (body: Body) =>
        body.positions.filter((e) => e.type === type).reduce((sum, e) => sum + suppliedOf(e), 0);
      expect(total(after.body), type).toBeGreaterThan(total(before));
    }
    await expectAmountsMatch(wallet, after.body, after.heads);
  });

  it("behavior: a liquidation after an oracle price drop shows in the next answer, with the protocol's new health factor", async () => {
    const chain = chainOf(8453);
    const borrower = ownerOf("borrower");
    const before = (await fetchPositions(borrower, [8453])).positions.filter((e) => e.type === "Tokenized");
    const debtBefore = before.find((e) => e.token_type === "VariableDebtV3")!;
    const collateralBefore = before.find((e) => e.token_type === "SupplyTokenV3")!;
    const block = await dropAavePriceAndLiquidate(chain, borrower);
    const reader = lendingReader(clientOf(8453), chain, block);
    let after: Entry[] = [];
    await eventually(
      async () => {
        after = (await fetchPositions(borrower, [8453])).positions.filter((e) => e.type === "Tokenized");
        const debt = after.find((e) => e.token_type === "VariableDebtV3");
        return debt !== undefined && debt.calculated_balance! < debtBefore.calculated_balance! - 500;
      },
      30_000,
      "the liquidation indexed",
    );
    const debt = after.find((e) => e.token_type === "VariableDebtV3")!;
    const collateral = after.find((e) => e.token_type === "SupplyTokenV3")!;
    expect(collateral.calculated_balance!).toBeLessThan(collateralBefore.calculated_balance!);
    const pool = debt.lending_pool!;
    const health = (await reader.aaveHealth(pool, borrower))!;
    expect(closeTo(debt.health_factor!, health)).toBe(true);
    expect(debt.health_factor).not.toBe(debtBefore.health_factor);
  });

  it("behavior: a reorg that removes a deposit removes the position", async () => {
    const chain = chainOf(10);
    const newcomer = "0x00000000000000000000000000000000000c0ffe";
    const test = createTestClient({ mode: "anvil", transport: http(chain.rpc_url) });
    const snapshot = await test.snapshot();
    const start = await clientOf(10).getBlockNumber();
    await aaveSupplyFor(chain, newcomer as Address, 250);
    const reorganised = Number((await clientOf(10).getBlockNumber()) - start);
    const supplied = async () =>
      (await fetchPositions(newcomer, [10])).positions.find((e) => e.token_type === "SupplyTokenV3")
        ?.calculated_balance;
    await eventually(async () => (await supplied()) === 250, 30_000, "the deposit indexed");
    await test.revert({ id: snapshot });
    // The canonical branch grows past the height of the reorganised blocks.
    await test.mine({ blocks: reorganised + 2 });
    await eventually(async () => (await supplied()) === undefined, 30_000, "the reorganised deposit gone");
  });
});

/** The sum of every amount in an answer: grows when interest accrues on both sides. */
const amountsOf = (body: Body): number =>
  body.positions.reduce(
    (sum, e) =>
      sum +
      (e.calculated_balance ?? 0) +
      (e.supply_quote?.calculated_balance ?? 0) +
      (e.debt_quote?.calculated_balance ?? 0),
    0,
  );

/** What an entry supplies (base and aTokens; not Comet collateral), in whole tokens of its asset. */
const suppliedOf = (e: Entry): number =>
  e.supply_quote?.calculated_balance ?? (e.token_type?.startsWith("SupplyToken") ? e.calculated_balance! : 0);

/** What an entry owes, in whole tokens of its asset. */
const debtOf = (e: Entry): number =>
  e.debt_quote?.calculated_balance ?? (e.token_type?.startsWith("VariableDebt") ? e.calculated_balance! : 0);

/** The same leg of the same position in two answers. */
const sameLeg = (a: Entry, b: Entry): boolean =>
  a.type === b.type && a.token_type === b.token_type && (a.token ?? a.market) === (b.token ?? b.market);

/** cToken markets keep a stored exchange rate and borrow index: a transaction brings them up to date. */
const accrueCTokenInterest = async (chain: ManifestChain) => {
  for (const market of chain.lending_markets.filter((m) => m.kind === "ctoken"))
    for (const asset of market.assets) await accrueInterest(chain, asset.supply_token as Address);
};
