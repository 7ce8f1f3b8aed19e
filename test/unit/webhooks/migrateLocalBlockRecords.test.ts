import { Effect } from "effect";
import { describe, expect, it } from "vitest";
import { migrateLocalBlockRecords } from "../../../src/webhooks/migrations/migrateLocalBlockRecords.js";
import { memoryDb } from "../../support/indexerBlocks.js";
import { memoryBlockRecords } from "../../support/memoryBlockRecords.js";

const pad = (n: number) => String(n).padStart(12, "0");
const local = (chainId: number, number: number, hash: string, webhook: string, released: boolean) => ({
  key: `wh!blk!${pad(chainId)}!${pad(number)}!${hash}!${webhook}`,
  value: {
    webhook_id: webhook,
    team_id: "T",
    type: "transactions",
    chain_id: chainId,
    block_number: number,
    block_hash: hash,
    released,
    events: [{ event_id: `${number}-${webhook}` }],
  },
});

describe("moving a node's LevelDB block records into the shared bucket", () => {
  it("behavior: local blocks join the shared list with their events and release state, blocks already listed are kept, and the local records go", async () => {
    const db = memoryDb();
    const { store } = memoryBlockRecords();
    await store.write({
      chainId: 1,
      revision: 0,
      kept: [],
      added: { number: 9, hash: "0x09", released: true, events: [] },
      dropped: [],
    });
    const records = [
      local(1, 9, "0x09", "W", true),
      local(1, 10, "0x0a", "W", true),
      local(1, 10, "0x0a", "V", true),
      local(1, 11, "0x0b", "W", false),
    ];
    await db.batch([
      ...records.map((r) => ({ type: "put" as const, ...r })),
      { type: "put", key: `wh!pend!${pad(1)}`, value: [{ number: 11, hash: "0x0b" }] },
    ]);
    expect(await Effect.runPromise(migrateLocalBlockRecords(db, store))).toBe(3);
    const { blocks } = await store.read(1);
    expect(blocks.map(({ number, released }) => ({ number, released }))).toEqual([
      { number: 9, released: true },
      { number: 10, released: true },
      { number: 11, released: false },
    ]);
    expect((await store.events(1, blocks[1]!)).map((e) => e.webhook_id).sort()).toEqual(["V", "W"]);
    expect(await store.events(1, blocks[0]!)).toEqual([]);
    const left: Array<unknown> = [];
    for await (const key of db.keys({ gte: "wh!", lt: "wh!~" })) left.push(key);
    expect(left).toEqual([]);
    // Nothing left to move: a second start changes nothing.
    expect(await Effect.runPromise(migrateLocalBlockRecords(db, store))).toBe(0);
  });
});
