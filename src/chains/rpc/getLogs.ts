import { Effect } from "effect";
import type { ChainRpc } from "./ChainRpc.js";
import { type ChainRpcError, faultError } from "./ChainRpcError.js";
import type { RpcLog, RpcReceipt } from "./RpcTypes.js";

/** What eth_getLogs filters on besides the block range. */
export interface LogFilter {
  readonly address?: string | ReadonlyArray<string>;
  readonly topics?: ReadonlyArray<string | ReadonlyArray<string> | null>;
}

const hex = (n: number) => `0x${n.toString(16)}`;

const lower = (value: string) => value.toLowerCase();

/** Whether `log` passes `filter`, as eth_getLogs would judge it. */
export const matchesFilter = (log: RpcLog, filter: LogFilter): boolean => {
  if (filter.address !== undefined) {
    const wanted = typeof filter.address === "string" ? [filter.address] : filter.address;
    if (wanted.length > 0 && !wanted.some((a) => lower(a) === lower(log.address))) return false;
  }
  return (filter.topics ?? []).every((topic, i) => {
    if (topic === null) return true;
    const actual = log.topics[i];
    if (actual === undefined) return false;
    const options = typeof topic === "string" ? [topic] : topic;
    return options.length === 0 || options.some((t) => lower(t) === lower(actual));
  });
};

/**
 * One block's logs from its receipts, for a block whose logs alone are over a provider's result
 * cap (a range cannot be split below one block): undefined when the node has no receipts for it.
 */
const logsFromReceipts = (rpc: ChainRpc, filter: LogFilter, block: number) =>
  rpc
    .call<ReadonlyArray<RpcReceipt> | null>("eth_getBlockReceipts", [hex(block)], { block, reads: "logs" })
    .pipe(
      Effect.map((receipts) =>
        Array.isArray(receipts)
          ? receipts.flatMap((receipt) =>
              Array.isArray(receipt?.logs)
                ? receipt.logs.filter((log: RpcLog) => matchesFilter(log, filter))
                : [],
            )
          : undefined,
      ),
      Effect.orElseSucceed(() => undefined),
    );

/**
 * Every log matching `filter` in blocks `from`..`to` (inclusive), in block order, read in ranges
 * the chain's endpoints accept (LogsRangeTuner): a refusal for range or result size is answered by
 * asking the range it suggests, or a smaller one, from the same block, and a range that timed out
 * by asking half; every other failure ends the read. A single block over a result cap cannot be
 * split: its logs are taken from its receipts (eth_getBlockReceipts), and only where the node
 * cannot give those either does the refusal end it.
 */
export const getLogs = (
  rpc: ChainRpc,
  filter: LogFilter,
  from: number,
  to: number,
  /** `keptOnly`: as for {@link eachLogs}. */
  options: { readonly keptOnly?: boolean } = {},
): Effect.Effect<ReadonlyArray<RpcLog>, ChainRpcError> =>
  Effect.suspend(() => {
    const logs: Array<RpcLog> = [];
    const gather = (answered: ReadonlyArray<RpcLog>) => {
      for (const log of answered) logs.push(log);
    };
    return Effect.as(eachLogs(rpc, filter, from, to, gather, options), logs);
  });

/**
 * As {@link getLogs}, handing each range's logs to `each` as it is answered instead of gathering
 * them: a reader that keeps only what it needs of them (a busy address's scan, millions of logs
 * over a stretch) holds one answer at a time.
 */
export const eachLogs = (
  rpc: ChainRpc,
  filter: LogFilter,
  from: number,
  to: number,
  each: (logs: ReadonlyArray<RpcLog>) => void,
  /**
   * Only from endpoints known to keep each range's first block (while any can be asked): for
   * reads that take an empty answer as "nothing there" for good (a wallet's scan, a registry's
   * backfill), where a node that answers its pruned blocks with nothing would lose what they hold.
   * Ingest leaves it off: its history read tells pruned blocks by the nodes' refusals.
   */
  options: { readonly keptOnly?: boolean } = {},
): Effect.Effect<void, ChainRpcError> =>
  Effect.gen(function* () {
    let cursor = from;
    let next: number | undefined;
    while (cursor <= to) {
      const blocks = Math.min(to - cursor + 1, next ?? rpc.logsRange.size);
      next = undefined;
      const end = cursor + blocks - 1;
      const answer = yield* Effect.either(
        rpc.call<ReadonlyArray<RpcLog>>(
          "eth_getLogs",
          [{ ...filter, fromBlock: hex(cursor), toBlock: hex(end) }],
          // A range that times out is asked again in halves, below; a single block as any call.
          {
            block: end,
            reads: "logs",
            ...(options.keptOnly === true ? { from: cursor } : {}),
            ...(blocks > 1 ? { timeoutIsTooHeavy: true } : {}),
          },
        ),
      );
      // A node's answer is whatever it sent: anything but a list (null, an object) is a bad answer,
      // never a throw in the reader.
      if (answer._tag === "Right" && !Array.isArray(answer.right))
        return yield* Effect.fail(
          faultError(rpc.chainId, "eth_getLogs", {
            reason: "BadResponse",
            detail: `the logs of blocks ${cursor}-${end} came as ${answer.right === null ? "null" : typeof answer.right}, not a list`,
          }),
        );
      if (answer._tag === "Right") {
        each(answer.right);
        rpc.logsRange.answered(blocks, answer.right.length);
        cursor = end + 1;
        continue;
      }
      const error = answer.left;
      // A node without a result cap (geth, Erigon) gathers a dense range's logs for as long as it
      // takes, and a gateway in front of it cuts the request: a range that timed out is asked in
      // halves, as a refused one is, rather than again whole after every retry.
      if (error.reason === "Timeout" && blocks > 1 && error.unsent !== true) {
        next = rpc.logsRange.refused({}, blocks);
        continue;
      }
      if (error.reason !== "RangeTooLarge" && error.reason !== "TooManyResults")
        return yield* Effect.fail(error);
      if (blocks === 1) {
        const fromReceipts = yield* logsFromReceipts(rpc, filter, cursor);
        if (fromReceipts === undefined) return yield* Effect.fail(error);
        each(fromReceipts);
        cursor = end + 1;
        continue;
      }
      next = rpc.logsRange.refused(error, blocks);
    }
  });
