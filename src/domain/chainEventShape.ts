import type { ChainBlock, ChainReorg } from "./ChainBlock.js";

/**
 * Shape checks of chain events as consumers read them from CHAIN_EVENTS. Only ingest may publish
 * there, but a message no consumer can apply (a bug, an old version, a misused credential) must not
 * wedge the index or loop through the notifier forever: consumers skip what fails these checks and
 * say so. They check what consumers dereference, field by field with `typeof`, instead of a full
 * Schema decode: a busy block has thousands of logs, and this runs on every block in every process.
 */

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;
const isHex = (value: unknown): boolean => isString(value) && value.startsWith("0x");

const isTransaction = (tx: unknown): boolean =>
  isObject(tx) &&
  isHex(tx.hash) &&
  isCount(tx.index) &&
  isHex(tx.from) &&
  (tx.to === null || isHex(tx.to)) &&
  isString(tx.value) &&
  isHex(tx.input) &&
  typeof tx.success === "boolean" &&
  (tx.contract_address === null || tx.contract_address === undefined || isHex(tx.contract_address));

const isLog = (log: unknown): boolean =>
  isObject(log) &&
  isHex(log.transaction_hash) &&
  isCount(log.transaction_index) &&
  isCount(log.log_index) &&
  isHex(log.address) &&
  Array.isArray(log.topics) &&
  log.topics.every(isHex) &&
  isHex(log.data);

const isInternalTransfer = (transfer: unknown): boolean =>
  isObject(transfer) &&
  isHex(transfer.transaction_hash) &&
  isHex(transfer.from) &&
  isHex(transfer.to) &&
  isString(transfer.value);

const isBlockRef = (ref: unknown): boolean => isObject(ref) && isCount(ref.number) && isHex(ref.hash);

/** Whether `data` is a block of chain `chainId` (the id in its subject) that consumers can apply. */
export const isChainBlock = (data: unknown, chainId: number): data is ChainBlock =>
  isObject(data) &&
  data.chain_id === chainId &&
  isCount(data.number) &&
  isHex(data.hash) &&
  isHex(data.parent_hash) &&
  isCount(data.timestamp) &&
  (data.source === "live" || data.source === "history") &&
  Array.isArray(data.transactions) &&
  data.transactions.every(isTransaction) &&
  Array.isArray(data.logs) &&
  data.logs.every(isLog) &&
  (data.internal_transfers === null ||
    (Array.isArray(data.internal_transfers) && data.internal_transfers.every(isInternalTransfer)));

/** Whether `data` is a reorg of chain `chainId` that consumers can apply. */
export const isChainReorg = (data: unknown, chainId: number): data is ChainReorg =>
  isObject(data) &&
  data.chain_id === chainId &&
  isBlockRef(data.common_ancestor) &&
  Array.isArray(data.removed) &&
  data.removed.every(isBlockRef);

/** Whether a message of `subject` (`chain.<id>.block` or `chain.<id>.reorg`) carries an event consumers can apply. */
export const isChainEvent = (subject: string, data: unknown): boolean => {
  const [, id, kind] = subject.split(".");
  const chainId = Number(id);
  if (kind === "block") return isChainBlock(data, chainId);
  if (kind === "reorg") return isChainReorg(data, chainId);
  return false;
};
