import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { addressAt, boolAt, topicAddress, topicUint, uintAt, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

/**
 * ERC-20 when the amount is in data (3 topics); ERC-721 when the token id is indexed (4 topics) or
 * everything is in data (1 topic, 3 words).
 */
const transfer: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length === 3 && wordCount(data) >= 1) {
    return {
      kind: "erc20.transfer",
      ...eventOrigin(log),
      from: topicAddress(topics[1]!),
      to: topicAddress(topics[2]!),
      value: uintAt(data, 0),
    };
  }
  if (topics.length === 4) {
    return {
      kind: "erc721.transfer",
      ...eventOrigin(log),
      from: topicAddress(topics[1]!),
      to: topicAddress(topics[2]!),
      tokenId: topicUint(topics[3]!),
    };
  }
  if (topics.length === 1 && wordCount(data) >= 3) {
    return {
      kind: "erc721.transfer",
      ...eventOrigin(log),
      from: addressAt(data, 0),
      to: addressAt(data, 1),
      tokenId: uintAt(data, 2),
    };
  }
  return undefined;
};

/** Same topic-count rule as `transfer`. */
const approval: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length === 3 && wordCount(data) >= 1) {
    return {
      kind: "erc20.approval",
      ...eventOrigin(log),
      owner: topicAddress(topics[1]!),
      spender: topicAddress(topics[2]!),
      value: uintAt(data, 0),
    };
  }
  if (topics.length === 4) {
    return {
      kind: "erc721.approval",
      ...eventOrigin(log),
      owner: topicAddress(topics[1]!),
      approved: topicAddress(topics[2]!),
      tokenId: topicUint(topics[3]!),
    };
  }
  if (topics.length === 1 && wordCount(data) >= 3) {
    return {
      kind: "erc721.approval",
      ...eventOrigin(log),
      owner: addressAt(data, 0),
      approved: addressAt(data, 1),
      tokenId: uintAt(data, 2),
    };
  }
  return undefined;
};

const approvalForAll: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 1) return undefined;
  return {
    kind: "erc721.approvalForAll",
    ...eventOrigin(log),
    owner: topicAddress(topics[1]!),
    operator: topicAddress(topics[2]!),
    approved: boolAt(data, 0),
  };
};

/** ERC-20 and ERC-721 `Transfer`, `Approval`, and the `ApprovalForAll` ERC-721 shares with ERC-1155. */
export const erc20And721Decoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.transfer, transfer],
  [EVENT_TOPICS.approval, approval],
  [EVENT_TOPICS.approvalForAll, approvalForAll],
];
