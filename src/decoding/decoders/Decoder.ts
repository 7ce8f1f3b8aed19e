import type { DecodedEvent, LogLike } from "../events/DecodedEvent.js";

/**
 * Decodes one log whose topic 0 already matched and whose hex is already validated. Returns
 * undefined when the topic count or data length does not fit the event (another contract's event
 * with the same signature but different `indexed` flags, or a truncated log).
 */
export type Decoder = (log: LogLike) => DecodedEvent | undefined;

/** A decoder registered under the topic 0 it handles. */
export type DecoderEntry = readonly [topic0: string, decode: Decoder];

/** Where a decoded event comes from: the fields every decoded event carries, taken from its log. */
export const eventOrigin = (log: LogLike) => ({
  address: log.address,
  logIndex: log.log_index,
  transactionIndex: log.transaction_index,
  transactionHash: log.transaction_hash,
});
