import type { Warning } from "../contracts/Common.js";

/**
 * The warning of spec 2.4 for numeric chain ids an endpoint does not serve.
 * `what` names the data, e.g. "Balances"; `docs_url` points at our own list of
 * supported chains.
 */
export const unsupportedChainsWarning = (
  unsupported: ReadonlyArray<number>,
  what: string,
  publicUrl: string,
): Warning | undefined =>
  unsupported.length === 0
    ? undefined
    : {
        code: "UNSUPPORTED_CHAIN_IDS",
        message: `Some requested chain_ids are not supported. ${what} are returned only for supported chains.`,
        chain_ids: [...unsupported],
        docs_url: `${publicUrl}/v1/evm/supported-chains`,
      };
