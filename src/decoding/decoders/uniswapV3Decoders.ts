import { EVENT_TOPICS } from "../abi/eventTopics.js";
import {
  addressAt,
  intAt,
  smallIntAt,
  topicAddress,
  topicSmallInt,
  topicSmallUint,
  uintAt,
  wordCount,
} from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const swap: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 5) return undefined;
  return {
    kind: "v3.swap",
    ...eventOrigin(log),
    sender: topicAddress(topics[1]!),
    recipient: topicAddress(topics[2]!),
    amount0: intAt(data, 0),
    amount1: intAt(data, 1),
    sqrtPriceX96: uintAt(data, 2),
    liquidity: uintAt(data, 3),
    tick: smallIntAt(data, 4),
  };
};

const mint: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 4) return undefined;
  return {
    kind: "v3.mint",
    ...eventOrigin(log),
    sender: addressAt(data, 0),
    owner: topicAddress(topics[1]!),
    tickLower: topicSmallInt(topics[2]!),
    tickUpper: topicSmallInt(topics[3]!),
    amount: uintAt(data, 1),
    amount0: uintAt(data, 2),
    amount1: uintAt(data, 3),
  };
};

const burn: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 3) return undefined;
  return {
    kind: "v3.burn",
    ...eventOrigin(log),
    owner: topicAddress(topics[1]!),
    tickLower: topicSmallInt(topics[2]!),
    tickUpper: topicSmallInt(topics[3]!),
    amount: uintAt(data, 0),
    amount0: uintAt(data, 1),
    amount1: uintAt(data, 2),
  };
};

const collect: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 3) return undefined;
  return {
    kind: "v3.collect",
    ...eventOrigin(log),
    owner: topicAddress(topics[1]!),
    recipient: addressAt(data, 0),
    tickLower: topicSmallInt(topics[2]!),
    tickUpper: topicSmallInt(topics[3]!),
    amount0: uintAt(data, 1),
    amount1: uintAt(data, 2),
  };
};

const poolCreated: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 2) return undefined;
  return {
    kind: "v3.poolCreated",
    ...eventOrigin(log),
    token0: topicAddress(topics[1]!),
    token1: topicAddress(topics[2]!),
    fee: topicSmallUint(topics[3]!),
    tickSpacing: smallIntAt(data, 0),
    pool: addressAt(data, 1),
  };
};

/** Uniswap V3 pool `Swap`/`Mint`/`Burn`/`Collect` and factory `PoolCreated` (forks emit the same). */
export const uniswapV3Decoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.v3Swap, swap],
  [EVENT_TOPICS.v3Mint, mint],
  [EVENT_TOPICS.v3Burn, burn],
  [EVENT_TOPICS.v3Collect, collect],
  [EVENT_TOPICS.v3PoolCreated, poolCreated],
];
