import { devAccount } from "../../src/devnet/devAccounts.js";
import { MANY_LOGS_CODE, manyLogsCalldata, ONE_LOG_CODE } from "../../test/support/logEmitters.js";
import { hex, nodeRequest } from "./nodeRequest.js";

const MANY_LOGS = "0x000000000000000000000000000000000000b0b5";
const ONE_LOG = "0x00000000000000000000000000000000000a11ce";
const FROM = devAccount(0).address;

/** Places the log-emitting contracts on a bare anvil, so its blocks can carry logs. */
export const installLogEmitters = async (url: string): Promise<void> => {
  await nodeRequest(url, "anvil_setCode", [MANY_LOGS, MANY_LOGS_CODE]);
  await nodeRequest(url, "anvil_setCode", [ONE_LOG, ONE_LOG_CODE]);
};

/**
 * Grows a bare anvil (automine on) by `blocks` blocks, every `every`-th holding one transaction that
 * emits `logsPerTx` logs, the rest empty (mined with anvil_mine): a history the size of a real
 * backfill's step count, read in a few seconds.
 */
export const mineLogHistory = async (
  url: string,
  options: { readonly blocks: number; readonly every: number; readonly logsPerTx: number },
): Promise<{ readonly head: number; readonly logs: number }> => {
  await installLogEmitters(url);
  let logs = 0;
  for (let mined = 0; mined < options.blocks; mined += options.every) {
    await nodeRequest(url, "eth_sendTransaction", [
      { from: FROM, to: MANY_LOGS, data: manyLogsCalldata(options.logsPerTx) },
    ]);
    logs += options.logsPerTx;
    const empty = Math.min(options.every, options.blocks - mined) - 1;
    if (empty > 0) await nodeRequest(url, "anvil_mine", [hex(empty)]);
  }
  // anvil's first transaction may land in the block it starts on: top up to the count asked for.
  const head = Number.parseInt(await nodeRequest<string>(url, "eth_blockNumber"), 16);
  if (head < options.blocks) await nodeRequest(url, "anvil_mine", [hex(options.blocks - head)]);
  return { head: Math.max(head, options.blocks), logs };
};

/**
 * Mines one block holding one transaction with one log (a chain that keeps moving, as a live one
 * does); resolves with its number once the node has it.
 */
export const mineOneLogBlock = async (url: string): Promise<number> => {
  const hash = await nodeRequest<string>(url, "eth_sendTransaction", [{ from: FROM, to: ONE_LOG }]);
  for (;;) {
    const receipt = await nodeRequest<{ blockNumber: string } | null>(url, "eth_getTransactionReceipt", [
      hash,
    ]);
    if (receipt !== null) return Number.parseInt(receipt.blockNumber, 16);
    await new Promise((r) => setTimeout(r, 5));
  }
};
