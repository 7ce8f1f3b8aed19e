import { algebraDecoders } from "./decoders/algebraDecoders.js";
import type { DecoderEntry } from "./decoders/Decoder.js";
import { erc20And721Decoders } from "./decoders/erc20And721Decoders.js";
import { erc1155Decoders } from "./decoders/erc1155Decoders.js";
import { lendingDecoders } from "./decoders/lendingDecoders.js";
import { restakeDecoders } from "./decoders/restakeDecoders.js";
import { uniswapV2Decoders } from "./decoders/uniswapV2Decoders.js";
import { uniswapV3Decoders } from "./decoders/uniswapV3Decoders.js";
import { uniswapV4Decoders } from "./decoders/uniswapV4Decoders.js";
import { wethDecoders } from "./decoders/wethDecoders.js";
import { yieldSplitDecoders } from "./decoders/yieldSplitDecoders.js";
import type { DecodedEvent, LogLike } from "./events/DecodedEvent.js";

const entries: ReadonlyArray<DecoderEntry> = [
  ...erc20And721Decoders,
  ...erc1155Decoders,
  ...wethDecoders,
  ...uniswapV2Decoders,
  ...uniswapV3Decoders,
  ...uniswapV4Decoders,
  ...algebraDecoders,
  ...lendingDecoders,
  ...restakeDecoders,
  ...yieldSplitDecoders,
];

/** One lookup per log: most logs on a real chain match nothing, so the miss must be the cheap path. */
const decoders = new Map(entries);

const TOPIC = /^0x[0-9a-f]{64}$/;
const DATA = /^0x(?:[0-9a-f]{2})*$/;
const ADDRESS = /^0x[0-9a-f]{40}$/;

/**
 * Hex is checked only after topic 0 matched, so unknown logs cost one Map miss. After this check no
 * reader can meet a non-hex digit, and every decoded address is lower case.
 */
const isWellFormed = (log: LogLike): boolean => {
  if (!ADDRESS.test(log.address) || !DATA.test(log.data)) return false;
  for (const topic of log.topics) if (!TOPIC.test(topic)) return false;
  return true;
};

/**
 * Decodes one log into a tagged event, or undefined when it is not one of the known events or is
 * malformed (wrong topic count, short data, non-hex or upper-case hex). Never throws. Input follows
 * `ChainLog`: lower-case hex, as ingestion normalises it.
 */
export const decodeLog = (log: LogLike): DecodedEvent | undefined => {
  const topic0 = log.topics[0];
  if (topic0 === undefined) return undefined;
  const decode = decoders.get(topic0);
  if (decode === undefined || !isWellFormed(log)) return undefined;
  try {
    return decode(log);
  } catch {
    // Defence in depth: after isWellFormed no reader throws, but "never throws" must not rest on that.
    return undefined;
  }
};

/** Decodes every log, keeping only the known events, in input order. */
export const decodeLogs = (logs: ReadonlyArray<LogLike>): Array<DecodedEvent> => {
  const events: Array<DecodedEvent> = [];
  for (const log of logs) {
    const event = decodeLog(log);
    if (event !== undefined) events.push(event);
  }
  return events;
};
