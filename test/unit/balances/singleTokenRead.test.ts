import { Effect } from "effect";
import type { Hex } from "viem";
import { describe, expect, it } from "vitest";
import * as Balances from "../../../src/balances/Balances.js";
import { walletTokenKey } from "../../../src/indexer/indexKeys.js";
import { Level } from "../../../src/storage/Level.js";
import {
  answerAggregate3,
  isLensCall,
  lensTokenCount,
  zeroBalancesAnswer,
} from "../../support/aggregate3Answers.js";
import { balancesOverNode } from "../../support/balancesOverNode.js";
import { testChainConfig } from "../../support/chainConfigFixture.js";
import { fakeChainRpc } from "../../support/chainRpc.js";

const chain = testChainConfig();

const WALLET = `0x${"ab".repeat(20)}`;
const tokenAt = (i: number) => `0x${i.toString(16).padStart(40, "0")}`;

/**
 * A node that answers every aggregate3 with failed calls (the sweep lens with zero balances), and
 * records how many balances and other reads each asked for (a lens call asks for each of its tokens).
 */
const countingNode = () => {
  const callsPerRead: Array<number> = [];
  const client = fakeChainRpc((requests) => ({
    kind: "answers",
    answers: requests.map((request) => {
      if (request.method !== "eth_call") throw new Error(`unexpected ${request.method}`);
      const data = (request.params as Array<{ data: Hex }>)[0]!.data;
      const { calls, result } = answerAggregate3(data, (call) =>
        isLensCall(call) ? zeroBalancesAnswer(call) : [false, "0x"],
      );
      callsPerRead.push(
        calls.reduce((n, call) => n + (isLensCall(call) ? lensTokenCount(call.callData) : 1), 0),
      );
      return { ok: true, result };
    }),
  }));
  return { client, callsPerRead };
};

describe("the single-token route's read", () => {
  it("bytes: reads the one token asked for, not every token of a 1,200-token wallet", async () => {
    const node = countingNode();
    const layer = balancesOverNode(node.client);
    await Effect.runPromise(
      Effect.gen(function* () {
        const db = yield* Level;
        yield* Effect.promise(() =>
          db.batch(
            Array.from({ length: 1_200 }, (_, i) => ({
              type: "put" as const,
              key: walletTokenKey(WALLET, 1, tokenAt(i)),
              value: { standard: "erc20", first_block: 1 },
            })),
          ),
        );
        const balances = yield* Balances.Balances;
        const pinned = new Map([[1, { number: 100 }]]);
        yield* balances.snapshot(WALLET, [chain], { pinned });
        yield* balances.snapshot(WALLET, [chain], { pinned, only: { chainId: 1, token: tokenAt(7) } });
        yield* balances.snapshot(WALLET, [chain], { pinned, only: { chainId: 1, token: "native" } });
      }).pipe(Effect.provide(layer)),
    );
    const [wholeWallet, oneToken, native] = node.callsPerRead;
    // The whole wallet: native and 1,200 balanceOf.
    expect(wholeWallet).toBe(1 + 1_200);
    // One token: native, its balanceOf and the probes that tell an ERC-20 from an NFT contract.
    expect(oneToken).toBeLessThan(10);
    expect(native).toBe(1);
  });
});
