import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { addressAt, topicAddress, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const poolCreated: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 1) return undefined;
  return {
    kind: "algebra.poolCreated",
    ...eventOrigin(log),
    token0: topicAddress(topics[1]!),
    token1: topicAddress(topics[2]!),
    pool: addressAt(data, 0),
  };
};

/** Algebra Integral factory `Pool` (pool creation without a custom deployer). */
export const algebraDecoders: ReadonlyArray<DecoderEntry> = [[EVENT_TOPICS.algebraPool, poolCreated]];
