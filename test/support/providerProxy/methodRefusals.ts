import type { Refusal } from "./jsonRpc.js";
import type { ProviderStyle } from "./settings.js";

/**
 * "Method not found" in each style's words.
 * - reth and anvil answer through jsonrpsee's METHOD_NOT_FOUND_MSG "Method not found" (-32601).
 * - geth (rpc/errors.go methodNotFoundError) and Erigon (its fork of geth's rpc package):
 *   "the method X does not exist/is not available" (-32601).
 * - Infura fronts geth and was seen answering the same text with a capital "The"
 *   (ConsenSys-archive/truffle-debugger#35). No own text was found for Alchemy or QuickNode, so they
 *   answer as the geth nodes they front.
 */
export const methodNotFound = (style: ProviderStyle, method: string): Refusal => {
  switch (style) {
    case "anvil":
    case "reth":
      return { kind: "method", error: { code: -32601, message: "Method not found" } };
    case "infura":
      return {
        kind: "method",
        error: { code: -32601, message: `The method ${method} does not exist/is not available` },
      };
    default:
      return {
        kind: "method",
        error: { code: -32601, message: `the method ${method} does not exist/is not available` },
      };
  }
};

/** Methods a node without debug/trace namespaces does not serve. */
export const isDebugOrTrace = (method: string): boolean =>
  method.startsWith("debug_") || method.startsWith("trace_");
