import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { addressAt, topicAddress, uintAt, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const swap: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 4) return undefined;
  return {
    kind: "v2.swap",
    ...eventOrigin(log),
    sender: topicAddress(topics[1]!),
    amount0In: uintAt(data, 0),
    amount1In: uintAt(data, 1),
    amount0Out: uintAt(data, 2),
    amount1Out: uintAt(data, 3),
    to: topicAddress(topics[2]!),
  };
};

const mint: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 2 || wordCount(data) < 2) return undefined;
  return {
    kind: "v2.mint",
    ...eventOrigin(log),
    sender: topicAddress(topics[1]!),
    amount0: uintAt(data, 0),
    amount1: uintAt(data, 1),
  };
};

const burn: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 2) return undefined;
  return {
    kind: "v2.burn",
    ...eventOrigin(log),
    sender: topicAddress(topics[1]!),
    amount0: uintAt(data, 0),
    amount1: uintAt(data, 1),
    to: topicAddress(topics[2]!),
  };
};

const sync: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 1 || wordCount(data) < 2) return undefined;
  return {
    kind: "v2.sync",
    ...eventOrigin(log),
    reserve0: uintAt(data, 0),
    reserve1: uintAt(data, 1),
  };
};

const pairCreated: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 2) return undefined;
  return {
    kind: "v2.pairCreated",
    ...eventOrigin(log),
    token0: topicAddress(topics[1]!),
    token1: topicAddress(topics[2]!),
    pair: addressAt(data, 0),
    allPairsLength: uintAt(data, 1),
  };
};

/** Uniswap V2 pair `Swap`/`Mint`/`Burn`/`Sync` and factory `PairCreated` (forks emit the same). */
export const uniswapV2Decoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.v2Swap, swap],
  [EVENT_TOPICS.v2Mint, mint],
  [EVENT_TOPICS.v2Burn, burn],
  [EVENT_TOPICS.v2Sync, sync],
  [EVENT_TOPICS.v2PairCreated, pairCreated],
];
