import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { DecodedEvent } from "../decoding/index.js";
import type { Operation } from "../storage/Level.js";
import { addNewKeys } from "./addNewKeys.js";
import type { LendingParticipation, LendingToken, UndoEntry } from "./IndexRecords.js";
import { lendingParticipationKey, lendingTokenKey } from "./indexKeys.js";
import { type LateRegistryReads, NO_LATE_REGISTRY_READS } from "./lateRegistryReads.js";
import type { IndexReads } from "./PendingWrites.js";
import type { AssetOf } from "./readUnderlying.js";

/** Reads a lending view needs from the chain while indexing: a cToken's underlying (null: native), a Comet's base token. */
export type ReadUnderlying = (contracts: ReadonlyArray<AssetOf>) => Promise<ReadonlyArray<string | null>>;

const ZERO = "0x0000000000000000000000000000000000000000";

/**
 * The writes that keep the lending views current for one block: tokens that carry positions
 * (Aave aTokens and variable debt tokens from the registry configurator's `ReserveInitialized`,
 * cTokens from the registry comptroller's `MarketListed`, with their underlying read once, and a
 * registry Comet itself, with its base token, when its first event is seen), and wallets' parts
 * in markets no token of theirs shows (cToken borrowers, Comet users). Only events
 * of registry deployments count. Keys are only ever added, so undo deletes what a block added.
 */
export const planLendingViews = async (
  db: IndexReads,
  chain: ChainConfig,
  blockNumber: number,
  events: ReadonlyArray<DecodedEvent>,
  readUnderlying: ReadUnderlying,
  late: LateRegistryReads = NO_LATE_REGISTRY_READS,
): Promise<{ readonly ops: ReadonlyArray<Operation>; readonly undo: ReadonlyArray<UndoEntry> }> => {
  const registry = protocolsOf(chain);
  const configurators = new Map(
    registry.filter((p) => p.configurator !== undefined).map((p) => [p.configurator!, p]),
  );
  const comptrollers = new Map(registry.filter((p) => p.kind === "ctoken").map((p) => [p.address, p]));
  const comets = new Set(registry.filter((p) => p.kind === "comet").map((p) => p.address));
  if (configurators.size === 0 && comptrollers.size === 0 && comets.size === 0) return { ops: [], undo: [] };

  const tokens = new Map<string, LendingToken>();
  const listed: Array<{ cToken: string; comptroller: string }> = [];
  const borrows: Array<{ cToken: string; borrower: string }> = [];
  const participation = new Set<string>();
  const cometsSeen = new Set<string>();
  const inComet = (wallet: string, comet: string, asset: string | undefined) => {
    cometsSeen.add(comet);
    participation.add(lendingParticipationKey(wallet, chain.chain_id, comet, asset));
  };
  for (const event of events) {
    switch (event.kind) {
      case "aave.reserveInitialized": {
        const deployment = configurators.get(event.address);
        if (deployment === undefined || (deployment.kind !== "aave_v2" && deployment.kind !== "aave_v3"))
          break;
        const base = { kind: deployment.kind, market: deployment.address, asset: event.asset } as const;
        tokens.set(lendingTokenKey(chain.chain_id, event.aToken), { ...base, side: "supply" });
        tokens.set(lendingTokenKey(chain.chain_id, event.variableDebtToken), { ...base, side: "debt" });
        break;
      }
      case "ctoken.marketListed":
        if (comptrollers.has(event.address))
          listed.push({ cToken: event.cToken, comptroller: event.address });
        break;
      case "ctoken.borrow":
        borrows.push({ cToken: event.address, borrower: event.borrower });
        break;
      case "comet.supply":
      case "comet.supplyCollateral":
        if (comets.has(event.address))
          inComet(event.dst, event.address, "asset" in event ? event.asset : undefined);
        break;
      case "comet.withdraw":
      case "comet.withdrawCollateral":
        if (comets.has(event.address))
          inComet(event.src, event.address, "asset" in event ? event.asset : undefined);
        break;
      default:
        break;
    }
  }
  // A Comet is recorded once, with its base token, the first time one of its events is seen.
  const cometList = [...cometsSeen];
  const cometKnown = await db.getMany(cometList.map((comet) => lendingTokenKey(chain.chain_id, comet)));
  const newComets = cometList.filter((_, i) => cometKnown[i] === undefined);
  const toRead: Array<AssetOf> = [
    ...listed.map((l) => ({ contract: l.cToken, kind: "ctoken" as const })),
    ...newComets.map((comet) => ({ contract: comet, kind: "comet" as const })),
  ];
  const assets = toRead.length === 0 ? [] : await readUnderlying(toRead);
  listed.forEach(({ cToken, comptroller }, i) => {
    tokens.set(lendingTokenKey(chain.chain_id, cToken), {
      kind: "ctoken",
      market: comptroller,
      side: "supply",
      asset: assets[i] ?? ZERO,
    });
  });
  newComets.forEach((comet, i) => {
    const base = assets[listed.length + i];
    if (base === null || base === undefined) return;
    tokens.set(lendingTokenKey(chain.chain_id, comet), {
      kind: "comet",
      market: comet,
      side: "supply",
      asset: base,
    });
  });
  if (borrows.length > 0) {
    // A borrow counts only from a cToken of a registry comptroller: listed now, before, or (a market
    // listed before the index's first block that the registry backfill has not reached) on the chain.
    const known = await db.getMany(borrows.map((b) => lendingTokenKey(chain.chain_id, b.cToken)));
    const tokenOf = (cToken: string, i: number) =>
      (known[i] as LendingToken | undefined) ?? tokens.get(lendingTokenKey(chain.chain_id, cToken));
    const unmet = borrows.filter((b, i) => tokenOf(b.cToken, i) === undefined).map((b) => b.cToken);
    const lateListed = unmet.length === 0 ? new Map() : await late.listedCTokens(unmet);
    for (const [cToken, record] of lateListed) tokens.set(lendingTokenKey(chain.chain_id, cToken), record);
    borrows.forEach((b, i) => {
      const token = tokenOf(b.cToken, i);
      if (token?.kind === "ctoken")
        participation.add(lendingParticipationKey(b.borrower, chain.chain_id, b.cToken, undefined));
    });
  }

  const writes: Array<[string, LendingToken | LendingParticipation]> = [
    ...tokens,
    ...[...participation].map((key): [string, LendingParticipation] => [key, { block: blockNumber }]),
  ];
  return addNewKeys(db, writes);
};
