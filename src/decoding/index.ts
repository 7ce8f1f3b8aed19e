/**
 * Pure decoding and classification of normalised blocks (`ChainBlock`): logs to tagged events,
 * transactions to per-wallet activities, and the wallet-token and pool indexes' inputs. No I/O.
 */
export { EVENT_TOPICS } from "./abi/eventTopics.js";
export type {
  Activity,
  ActivityBase,
  ActivityType,
  ApproveActivity,
  AssetType,
  CallActivity,
  SwapActivity,
  TransferActivity,
} from "./activities/Activity.js";
export { NATIVE_TOKEN } from "./activities/Activity.js";
export { activityId } from "./activities/activityId.js";
export { toBlockTime } from "./activities/blockTime.js";
export type { BlockContext, ClassifyOptions, TransactionLike } from "./activities/classifyTransaction.js";
export { classifyTransaction } from "./activities/classifyTransaction.js";
export type { InternalTransferLike } from "./activities/collectMovements.js";
export type { BlockInternalTransferLike, BlockLike } from "./BlockLike.js";
export { classifyBlock } from "./classifyBlock.js";
export { decodeLog, decodeLogs } from "./decodeLog.js";
export type { DecodedEvent, DecodedEventKind, LogLike } from "./events/DecodedEvent.js";
export type * from "./events/TokenEvent.js";
export type * from "./events/UniswapV2Event.js";
export type * from "./events/UniswapV3Event.js";
export type * from "./events/UniswapV4Event.js";
export type { PoolCreated, V2PoolCreated, V3PoolCreatedRecord, V4PoolCreated } from "./poolsCreated.js";
export { poolsCreated } from "./poolsCreated.js";
export type { TokenTouch } from "./tokenTouches.js";
export { contractTokenTouches, tokenTouches } from "./tokenTouches.js";
