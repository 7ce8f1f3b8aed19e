import { Cause, Effect, Exit, Option } from "effect";
import type { Header, HeaderSource } from "./blockAtTime.js";
import type { ChainRpc } from "./rpc/ChainRpc.js";
import { ChainRpcError } from "./rpc/ChainRpcError.js";
import type { RpcBlock } from "./rpc/RpcTypes.js";

const hex = (n: number) => `0x${n.toString(16)}`;

const run = async <A>(effect: Effect.Effect<A, ChainRpcError>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect);
  if (Exit.isSuccess(exit)) return exit.value;
  const failure = Cause.failureOption(exit.cause);
  throw Option.isSome(failure) ? failure.value : Cause.squash(exit.cause);
};

const headerOf = (block: RpcBlock<string> | null): Header | null =>
  block === null || block === undefined
    ? null
    : { number: Number.parseInt(block.number, 16), timestamp: Number.parseInt(block.timestamp, 16) };

/**
 * Headers from a chain's nodes: `eth_getBlockByNumber(n, false)`, one batch per round of a search
 * (the RPC layer splits it to what the endpoint takes). A node that does not have a block answers
 * null, or refuses it as pruned history (reth's 4444, geth's "header not found"); either is a null
 * here, so a search says the time is out of the node's reach instead of failing. Other refusals
 * (timeouts, rate limits no endpoint got over) fail the read.
 */
export const nodeHeaders = (rpc: ChainRpc): HeaderSource => {
  const read = (refs: ReadonlyArray<number | "latest">) => {
    const numbers = refs.filter((ref): ref is number => ref !== "latest");
    return rpc.batch<RpcBlock<string> | null>(
      refs.map((ref) => ({
        method: "eth_getBlockByNumber",
        params: [ref === "latest" ? "latest" : hex(ref), false],
      })),
      // A head read skips lagging endpoints; a past block skips those that have not reached it.
      refs.includes("latest") ? { head: true } : numbers.length > 0 ? { block: Math.max(...numbers) } : {},
    );
  };
  return {
    headers: async (refs) => {
      try {
        return (await run(read(refs))).map(headerOf);
      } catch (error) {
        if (!(error instanceof ChainRpcError) || error.reason !== "HistoryUnavailable") throw error;
        // One block of the batch is pruned: ask for each alone, to keep the others' answers.
        return Promise.all(
          refs.map(async (ref) => {
            try {
              return headerOf((await run(read([ref])))[0] ?? null);
            } catch (single) {
              if (
                single instanceof ChainRpcError &&
                single.reason === "HistoryUnavailable" &&
                ref !== "latest"
              )
                return null;
              throw single;
            }
          }),
        );
      }
    },
  };
};
