import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { topicAddress, uintAt, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const deposit: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 2 || wordCount(data) < 1) return undefined;
  return {
    kind: "weth.deposit",
    ...eventOrigin(log),
    dst: topicAddress(topics[1]!),
    wad: uintAt(data, 0),
  };
};

const withdrawal: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 2 || wordCount(data) < 1) return undefined;
  return {
    kind: "weth.withdrawal",
    ...eventOrigin(log),
    src: topicAddress(topics[1]!),
    wad: uintAt(data, 0),
  };
};

/**
 * WETH9 `Deposit` and `Withdrawal`. Vaults and staking contracts emit the same signatures, so these
 * decode from any emitter; classification only treats the configured wrapped-native token as a wrap.
 */
export const wethDecoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.deposit, deposit],
  [EVENT_TOPICS.withdrawal, withdrawal],
];
