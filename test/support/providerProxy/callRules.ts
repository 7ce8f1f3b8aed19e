import { STATE_BLOCK_PARAM } from "./blockRefs.js";
import {
  blockByNumberRule,
  blockNumberRule,
  blockReceiptsRule,
  laggingLookupRule,
  stateAtBlockRule,
  traceBlockRule,
  transactionReceiptRule,
} from "./historyRules.js";
import { forward, type Outcome, type RpcCall, refuse } from "./jsonRpc.js";
import { getLogsRule } from "./logsRule.js";
import { isDebugOrTrace, methodNotFound } from "./methodRefusals.js";
import type { RuleContext } from "./ruleContext.js";

/** What the emulated node does with one call; anything no rule claims goes upstream as it came. */
export const outcomeOf = async (call: RpcCall, context: RuleContext): Promise<Outcome> => {
  const { settings } = context;
  if (settings.noDebug && isDebugOrTrace(call.method))
    return refuse(methodNotFound(settings.style, call.method));
  if (settings.noBlockReceipts && call.method === "eth_getBlockReceipts") {
    return refuse(methodNotFound(settings.style, call.method));
  }
  switch (call.method) {
    case "eth_blockNumber":
      return blockNumberRule(call, context);
    case "eth_getLogs":
      return getLogsRule(call, context);
    case "eth_getBlockReceipts":
      return blockReceiptsRule(call, context);
    case "eth_getTransactionReceipt":
      return transactionReceiptRule(call, context);
    case "eth_getBlockByHash":
    case "eth_getTransactionByHash":
      return laggingLookupRule(call, context);
    case "eth_getBlockByNumber":
      return blockByNumberRule(call, context);
    case "debug_traceBlockByHash":
      return traceBlockRule(call, context);
  }
  const blockParam = STATE_BLOCK_PARAM.get(call.method);
  return blockParam === undefined ? forward(call) : stateAtBlockRule(call, blockParam, context);
};
