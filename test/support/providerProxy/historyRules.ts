import { parseBlockRef } from "./blockRefs.js";
import { prunedHistory, prunedState, unknownBlock } from "./historyRefusals.js";
import {
  answer,
  type Final,
  forward,
  hex,
  type Outcome,
  paramsOf,
  type RpcCall,
  type RpcResponse,
  refuse,
  relay,
  withParam,
} from "./jsonRpc.js";
import type { RuleContext } from "./ruleContext.js";

const untouched = ({ settings }: RuleContext): boolean =>
  settings.headLag === 0 && settings.prunedWindow === undefined && settings.stateWindow === undefined;

type Located =
  /** A tag (latest, pending, safe, finalized): `call` names the block as this node sees it. */
  | { readonly kind: "live"; readonly call: RpcCall }
  /** A numbered or hashed block this node may or may not have. */
  | { readonly kind: "block"; readonly number: number; readonly hash: string | undefined }
  /** Nothing upstream knows: upstream answers in its own words. */
  | { readonly kind: "unknown" };

/**
 * Where a block parameter points for this node. A tag is pinned to the lagging head's block number, so
 * upstream answers for the block this node calls latest; without lag it goes as it came, unlooked-up.
 */
const locate = async (call: RpcCall, index: number, context: RuleContext): Promise<Located> => {
  const ref = parseBlockRef(paramsOf(call)[index]);
  if (ref.kind === "other") return { kind: "unknown" };
  if (ref.kind === "tag" && ref.tag !== "earliest") {
    if (context.settings.headLag === 0) return { kind: "live", call };
    const number = await context.view.numberOf(ref);
    return { kind: "live", call: number === undefined ? call : withParam(call, index, hex(number)) };
  }
  const number = await context.view.numberOf(ref);
  if (number === undefined) return { kind: "unknown" };
  return { kind: "block", number, hash: ref.kind === "hash" ? ref.hash : undefined };
};

/** State read at a block (eth_call, eth_getBalance, …): unknown above the head, pruned below the window. */
export const stateAtBlockRule = async (
  call: RpcCall,
  index: number,
  context: RuleContext,
): Promise<Outcome> => {
  if (untouched(context)) return forward(call);
  const { style } = context.settings;
  const located = await locate(call, index, context);
  // A pruned node still serves the state of its latest, safe and finalized blocks.
  if (located.kind === "live") return forward(located.call);
  if (located.kind === "unknown") return forward(call);
  const { number, hash } = located;
  if (number > (await context.view.head())) {
    return refuse(unknownBlock(style, hash === undefined ? { number } : { hash }));
  }
  const earliest = await context.view.earliestState();
  if (earliest !== undefined && number < earliest) {
    return refuse(prunedState(style, number, earliest, await context.view.stateRoot(number)));
  }
  return forward(call);
};

/**
 * debug_traceBlockByHash: a trace re-executes the block from its parent's state, so a block whose
 * state is no longer kept answers the style's pruned-state error.
 */
export const traceBlockRule = async (call: RpcCall, context: RuleContext): Promise<Outcome> => {
  if (untouched(context)) return forward(call);
  const hash = paramsOf(call)[0];
  const number = typeof hash === "string" ? await context.view.numberOfHash(hash) : undefined;
  if (number === undefined) return forward(call);
  const earliest = await context.view.earliestState();
  if (earliest !== undefined && number < earliest) {
    return refuse(
      prunedState(context.settings.style, number, earliest, await context.view.stateRoot(number)),
    );
  }
  return forward(call);
};

/** eth_getBlockReceipts: null above the head, pruned below the window. */
export const blockReceiptsRule = async (call: RpcCall, context: RuleContext): Promise<Outcome> => {
  if (untouched(context)) return forward(call);
  const located = await locate(call, 0, context);
  if (located.kind === "live") return forward(located.call);
  if (located.kind === "unknown") return forward(call);
  if (located.number > (await context.view.head())) return answer(null);
  const earliest = await context.view.earliestKept();
  if (earliest !== undefined && located.number < earliest) {
    return refuse(prunedHistory(context.settings.style, located.number, earliest));
  }
  return forward(call);
};

const blockNumberOf = (response: RpcResponse): number | undefined => {
  if (!("result" in response) || typeof response.result !== "object" || response.result === null)
    return undefined;
  const { blockNumber, number } = response.result as { blockNumber?: unknown; number?: unknown };
  const value = blockNumber ?? number;
  return typeof value === "string" ? Number.parseInt(value, 16) : undefined;
};

/**
 * eth_getTransactionReceipt: looked up upstream, then judged by the block it is in (a lagging node has
 * not seen it yet; a pruned one has dropped it).
 */
export const transactionReceiptRule = (call: RpcCall, context: RuleContext): Outcome => {
  if (untouched(context)) return forward(call);
  return forward(call, async (response): Promise<Final> => {
    const number = blockNumberOf(response);
    if (number === undefined) return relay(response);
    if (number > (await context.view.head())) return answer(null);
    const earliest = await context.view.earliestKept();
    if (earliest !== undefined && number < earliest) {
      return refuse(prunedHistory(context.settings.style, number, earliest));
    }
    return relay(response);
  });
};

/** eth_getBlockByHash and eth_getTransactionByHash: a lagging node does not know newer blocks. */
export const laggingLookupRule = (call: RpcCall, context: RuleContext): Outcome => {
  if (context.settings.headLag === 0) return forward(call);
  return forward(call, async (response): Promise<Final> => {
    const number = blockNumberOf(response);
    if (number !== undefined && number > (await context.view.head())) return answer(null);
    return relay(response);
  });
};

/** eth_getBlockByNumber: headers answer whatever is pruned; blocks above a lagging head are null. */
export const blockByNumberRule = async (call: RpcCall, context: RuleContext): Promise<Outcome> => {
  if (context.settings.headLag === 0) return forward(call);
  const located = await locate(call, 0, context);
  if (located.kind === "live") return forward(located.call);
  if (located.kind === "block" && located.number > (await context.view.head())) return answer(null);
  return forward(call);
};

/** eth_blockNumber: the lagging head. */
export const blockNumberRule = async (call: RpcCall, context: RuleContext): Promise<Outcome> => {
  if (context.settings.headLag === 0) return forward(call);
  return answer(hex(await context.view.head()));
};
