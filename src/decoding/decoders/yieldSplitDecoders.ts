import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { addressAt, topicAddress, topicUint, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const yieldContractCreated: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) !== 2) return undefined;
  return {
    kind: "pendle.createYieldContract",
    ...eventOrigin(log),
    sy: topicAddress(topics[1]!),
    expiry: topicUint(topics[2]!),
    pt: addressAt(data, 0),
    yt: addressAt(data, 1),
  };
};

const marketCreated: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) !== 3) return undefined;
  return {
    kind: "pendle.createNewMarket",
    ...eventOrigin(log),
    market: topicAddress(topics[1]!),
    pt: topicAddress(topics[2]!),
  };
};

/** Pendle V2 factory events; any contract can emit them, the index keeps only registry factories'. */
export const yieldSplitDecoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.pendleCreateYieldContract, yieldContractCreated],
  [EVENT_TOPICS.pendleCreateNewMarket, marketCreated],
];
