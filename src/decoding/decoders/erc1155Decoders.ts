import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { topicAddress, uintAt, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const transferSingle: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 2) return undefined;
  return {
    kind: "erc1155.transferSingle",
    ...eventOrigin(log),
    operator: topicAddress(topics[1]!),
    from: topicAddress(topics[2]!),
    to: topicAddress(topics[3]!),
    id: uintAt(data, 0),
    value: uintAt(data, 1),
  };
};

/**
 * Reads a `uint256[]` whose offset (in bytes, from the start of data) is in head word `head`. Undefined
 * when the offset is not word-aligned or the array runs past the end of data.
 */
const readUintArray = (data: string, head: number, words: number): Array<bigint> | undefined => {
  const offset = uintAt(data, head);
  if (offset % 32n !== 0n || offset / 32n >= BigInt(words)) return undefined;
  const start = Number(offset / 32n);
  const length = uintAt(data, start);
  if (length > BigInt(words - start - 1)) return undefined;
  const items = new Array<bigint>(Number(length));
  for (let k = 0; k < items.length; k++) items[k] = uintAt(data, start + 1 + k);
  return items;
};

const transferBatch: Decoder = (log) => {
  const { topics, data } = log;
  const words = wordCount(data);
  if (topics.length !== 4 || words < 4) return undefined;
  const ids = readUintArray(data, 0, words);
  const values = readUintArray(data, 1, words);
  if (ids === undefined || values === undefined || ids.length !== values.length) return undefined;
  return {
    kind: "erc1155.transferBatch",
    ...eventOrigin(log),
    operator: topicAddress(topics[1]!),
    from: topicAddress(topics[2]!),
    to: topicAddress(topics[3]!),
    ids,
    values,
  };
};

/** ERC-1155 `TransferSingle` and `TransferBatch`. */
export const erc1155Decoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.transferSingle, transferSingle],
  [EVENT_TOPICS.transferBatch, transferBatch],
];
