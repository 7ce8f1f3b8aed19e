import { type ChainConfig, protocolsOf } from "../chains/ChainsConfig.js";
import type { DecodedEvent } from "../decoding/index.js";
import type { Operation } from "../storage/Level.js";
import { addNewKeys } from "./addNewKeys.js";
import type { UndoEntry, YieldSplitToken } from "./IndexRecords.js";
import { yieldSplitMarketKey, yieldSplitTokenKey } from "./indexKeys.js";
import { type LateRegistryReads, NO_LATE_REGISTRY_READS } from "./lateRegistryReads.js";
import type { IndexReads } from "./PendingWrites.js";
import type { ReadUnderlying } from "./planLendingViews.js";

/**
 * The writes that record the tokens of registry yield-splitting deployments (kind `pendle`): PT and
 * YT from the yield contract factory's `CreateYieldContract`, with the SY's asset read once, and a
 * market (its LP token) from the registry market factory's `CreateNewMarket`, for a PT the index
 * already knows (or this block created; one it has not met is read from the chain, `late`), plus the
 * PT's first market. Only registry factories' events
 * count, so a look-alike token never passes for one. Keys are only ever added, so undo deletes what
 * a block added.
 */
export const planYieldSplitViews = async (
  db: IndexReads,
  chain: ChainConfig,
  events: ReadonlyArray<DecodedEvent>,
  readAssets: ReadUnderlying,
  late: LateRegistryReads = NO_LATE_REGISTRY_READS,
): Promise<{ readonly ops: ReadonlyArray<Operation>; readonly undo: ReadonlyArray<UndoEntry> }> => {
  const deployments = protocolsOf(chain).filter((p) => p.kind === "pendle");
  if (deployments.length === 0) return { ops: [], undo: [] };
  const factories = new Set(deployments.map((p) => p.address));
  const marketFactories = new Map(
    deployments.filter((p) => p.market_factory !== undefined).map((p) => [p.market_factory!, p.address]),
  );
  const created: Array<{ factory: string; sy: string; pt: string; yt: string; expiry: number }> = [];
  const markets: Array<{ factory: string; market: string; pt: string }> = [];
  for (const event of events) {
    if (event.kind === "pendle.createYieldContract" && factories.has(event.address))
      created.push({
        factory: event.address,
        sy: event.sy,
        pt: event.pt,
        yt: event.yt,
        expiry: Number(event.expiry),
      });
    else if (event.kind === "pendle.createNewMarket" && marketFactories.has(event.address))
      markets.push({ factory: marketFactories.get(event.address)!, market: event.market, pt: event.pt });
  }
  if (created.length === 0 && markets.length === 0) return { ops: [], undo: [] };

  const assets =
    created.length === 0 ? [] : await readAssets(created.map((c) => ({ contract: c.sy, kind: "sy" })));
  const tokens = new Map<string, YieldSplitToken>();
  created.forEach((c, i) => {
    const asset = assets[i];
    if (asset === null || asset === undefined) return;
    const base = { factory: c.factory, sy: c.sy, pt: c.pt, yt: c.yt, expiry: c.expiry, asset };
    tokens.set(c.pt, { role: "pt", ...base });
    tokens.set(c.yt, { role: "yt", ...base });
  });
  const known = await db.getMany(markets.map((m) => yieldSplitTokenKey(chain.chain_id, m.pt)));
  const writes: Array<readonly [string, unknown]> = [];
  const unmet: Array<string> = [];
  markets.forEach((m, i) => {
    const pt = (known[i] as YieldSplitToken | undefined) ?? tokens.get(m.pt);
    if (pt === undefined) {
      unmet.push(m.market);
      return;
    }
    // A market of the same deployment's PT only.
    if (pt.role !== "pt" || pt.factory !== m.factory) return;
    tokens.set(m.market, { ...pt, role: "lp" });
    writes.push([yieldSplitMarketKey(chain.chain_id, m.pt), m.market]);
  });
  // A market of a PT created before the index's first block, which the registry backfill has not
  // recorded (yet): the chain says what the market is made of, and whether a registry factory made it.
  if (unmet.length > 0) writes.push(...(await late.yieldSplitMarkets(unmet)));
  for (const [token, record] of tokens) writes.push([yieldSplitTokenKey(chain.chain_id, token), record]);
  return addNewKeys(db, writes);
};
