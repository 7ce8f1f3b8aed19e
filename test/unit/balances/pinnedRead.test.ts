import { Effect, Exit } from "effect";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import * as Balances from "../../../src/balances/Balances.js";
import type { RpcRequest } from "../../../src/chains/rpc/RpcRequest.js";
import * as IndexReader from "../../../src/indexer/IndexReader.js";
import { indexCheckpointKey, walletTokenKey } from "../../../src/indexer/indexKeys.js";
import { Level } from "../../../src/storage/Level.js";
import { answerAggregate3, isLensCall, zeroBalancesAnswer } from "../../support/aggregate3Answers.js";
import { balancesOverNode } from "../../support/balancesOverNode.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";

const chain = testChainConfig({ finality_depth: 10 });
const WALLET = `0x${"ab".repeat(20)}`;
const HEAD = 100;
const hashOf = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;
const tokenAt = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;

/**
 * A node at HEAD that answers headers, and every aggregate3 with failed calls (the sweep lens with
 * zero balances), or refuses it as
 * pruned history when `pruned`; recording the block each eth_call named.
 */
const node = (options: { readonly pruned?: boolean } = {}) => {
  const callsAt: Array<unknown> = [];
  const answer = (request: RpcRequest) => {
    if (request.method === "eth_getBlockByNumber") {
      const n = Number.parseInt((request.params as Array<string>)[0]!, 16);
      return {
        ok: true as const,
        result: { number: `0x${n.toString(16)}`, hash: hashOf(n), timestamp: "0x64" },
      };
    }
    if (request.method !== "eth_call") throw new Error(`unexpected ${request.method}`);
    callsAt.push((request.params as Array<unknown>)[1]);
    if (options.pruned)
      return {
        ok: false as const,
        fault: { reason: "HistoryUnavailable" as const, detail: "missing trie node" },
      };
    const data = (request.params as Array<{ data: Hex }>)[0]!.data;
    // The lens answers zero balances; every other call fails.
    const { result } = answerAggregate3(data, (call) =>
      isLensCall(call) ? zeroBalancesAnswer(call) : [false, "0x"],
    );
    return { ok: true as const, result };
  };
  const client = fakeChainRpc((requests) => ({ kind: "answers", answers: requests.map(answer) }));
  return { client, callsAt };
};

const run = <A, E>(
  client: ReturnType<typeof node>["client"],
  program: Effect.Effect<A, E, Balances.Balances | Level | IndexReader.Index>,
) => {
  const layer = balancesOverNode(client);
  return Effect.runPromiseExit(
    Effect.gen(function* () {
      const db = yield* Level;
      yield* Effect.promise(() =>
        db.batch([
          { type: "put", key: indexCheckpointKey(1), value: { number: HEAD, hash: hashOf(HEAD) } },
          {
            type: "put",
            key: walletTokenKey(WALLET, 1, tokenAt(1)),
            value: { standard: "erc20", first_block: 1 },
          },
        ]),
      );
      return yield* program;
    }).pipe(Effect.provide(layer)),
  );
};

describe("balances at a block asked for", () => {
  it("default: the read names the block by its hash, and the answer is that block's", async () => {
    const { client, callsAt } = node();
    const exit = await run(
      client,
      Effect.gen(function* () {
        const balances = yield* Balances.Balances;
        const block = yield* balances.pastBlock(chain, 95);
        return yield* balances.snapshot(WALLET, [chain], { pinned: new Map([[1, block]]) });
      }),
    );
    expect(Exit.isSuccess(exit) && exit.value.byChain[0]?.holdings.block).toBe(95);
    expect(callsAt).toEqual([{ blockHash: hashOf(95) }]);
  });

  it("behavior: a past block's read is kept, until the index learns of a token the wallet touched", async () => {
    const { client, callsAt } = node();
    await run(
      client,
      Effect.gen(function* () {
        const balances = yield* Balances.Balances;
        const { cache } = yield* IndexReader.Index;
        const db = yield* Level;
        const pinned = new Map([[1, yield* balances.pastBlock(chain, 95)]]);
        yield* balances.snapshot(WALLET, [chain], { pinned });
        yield* balances.snapshot(WALLET, [chain], { pinned });
        expect(callsAt).toHaveLength(1);
        const touch = {
          type: "put" as const,
          key: walletTokenKey(WALLET, 1, tokenAt(2)),
          value: { standard: "erc20", first_block: 99 },
        };
        yield* Effect.promise(() => db.batch([touch]));
        cache.written([touch]);
        yield* balances.snapshot(WALLET, [chain], { pinned });
        expect(callsAt).toHaveLength(2);
      }),
    );
  });

  it("error: a node that no longer keeps the block's state makes it a 400 naming the block, not a failed chain", async () => {
    const { client } = node({ pruned: true });
    const exit = await run(
      client,
      Effect.gen(function* () {
        const balances = yield* Balances.Balances;
        return yield* balances.snapshot(WALLET, [chain], { pinned: new Map([[1, { number: 95 }]]) });
      }),
    );
    expect(exit).toEqual(
      Exit.fail(
        expect.objectContaining({
          _tag: "InvalidRequest",
          code: "BLOCK_STATE_UNAVAILABLE",
          message: expect.stringContaining("keep no state at block 95"),
        }),
      ),
    );
  });

  it("error: pinned by a listing's offset, the same refusal says the offset is stale and to start again", async () => {
    const { client } = node({ pruned: true });
    const exit = await run(
      client,
      Effect.gen(function* () {
        const balances = yield* Balances.Balances;
        return yield* balances.snapshot(WALLET, [chain], {
          pinned: new Map([[1, { number: 95 }]]),
          pinnedBy: "offset",
        });
      }),
    );
    expect(exit).toEqual(
      Exit.fail(
        expect.objectContaining({
          _tag: "InvalidRequest",
          code: "STALE_OFFSET",
          message: expect.stringMatching(/no longer keep the state at block 95.*start again without offset/),
        }),
      ),
    );
  });

  it("error: the same refusal at the head (not pinned) stays a chain that could not be read", async () => {
    const { client } = node({ pruned: true });
    const exit = await run(
      client,
      Effect.gen(function* () {
        return yield* (yield* Balances.Balances).snapshot(WALLET, [chain]);
      }),
    );
    expect(exit).toEqual(
      Exit.fail(expect.objectContaining({ _tag: "Unavailable", code: "CHAINS_UNAVAILABLE" })),
    );
  });
});
