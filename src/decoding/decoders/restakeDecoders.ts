import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { addressAt, uintAt, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const deposit: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 1 || wordCount(data) !== 4) return undefined;
  return {
    kind: "restake.deposit",
    ...eventOrigin(log),
    staker: addressAt(data, 0),
    token: addressAt(data, 1),
    strategy: addressAt(data, 2),
    shares: uintAt(data, 3),
  };
};

/** Restaking StrategyManager `Deposit`; any contract can emit it, the index keeps only registry managers'. */
export const restakeDecoders: ReadonlyArray<DecoderEntry> = [[EVENT_TOPICS.restakeDeposit, deposit]];
