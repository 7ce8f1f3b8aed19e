import { EVENT_TOPICS } from "../abi/eventTopics.js";
import {
  addressAt,
  bytes32At,
  intAt,
  smallIntAt,
  smallUintAt,
  topicAddress,
  uintAt,
  wordCount,
} from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const initialize: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 5) return undefined;
  return {
    kind: "v4.initialize",
    ...eventOrigin(log),
    id: topics[1]!,
    currency0: topicAddress(topics[2]!),
    currency1: topicAddress(topics[3]!),
    fee: smallUintAt(data, 0),
    tickSpacing: smallIntAt(data, 1),
    hooks: addressAt(data, 2),
    sqrtPriceX96: uintAt(data, 3),
    tick: smallIntAt(data, 4),
  };
};

const swap: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 6) return undefined;
  return {
    kind: "v4.swap",
    ...eventOrigin(log),
    id: topics[1]!,
    sender: topicAddress(topics[2]!),
    amount0: intAt(data, 0),
    amount1: intAt(data, 1),
    sqrtPriceX96: uintAt(data, 2),
    liquidity: uintAt(data, 3),
    tick: smallIntAt(data, 4),
    fee: smallUintAt(data, 5),
  };
};

const modifyLiquidity: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 4) return undefined;
  return {
    kind: "v4.modifyLiquidity",
    ...eventOrigin(log),
    id: topics[1]!,
    sender: topicAddress(topics[2]!),
    tickLower: smallIntAt(data, 0),
    tickUpper: smallIntAt(data, 1),
    liquidityDelta: intAt(data, 2),
    salt: bytes32At(data, 3),
  };
};

/** Uniswap V4 PoolManager `Initialize`, `Swap` and `ModifyLiquidity`. */
export const uniswapV4Decoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.v4Initialize, initialize],
  [EVENT_TOPICS.v4Swap, swap],
  [EVENT_TOPICS.v4ModifyLiquidity, modifyLiquidity],
];
