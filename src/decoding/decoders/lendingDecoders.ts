import { EVENT_TOPICS } from "../abi/eventTopics.js";
import { addressAt, topicAddress, uintAt, wordCount } from "../abi/words.js";
import { type Decoder, type DecoderEntry, eventOrigin } from "./Decoder.js";

const reserveInitialized: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 3) return undefined;
  return {
    kind: "aave.reserveInitialized",
    ...eventOrigin(log),
    asset: topicAddress(topics[1]!),
    aToken: topicAddress(topics[2]!),
    stableDebtToken: addressAt(data, 0),
    variableDebtToken: addressAt(data, 1),
  };
};

const marketListed: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 1 || wordCount(data) < 1) return undefined;
  return { kind: "ctoken.marketListed", ...eventOrigin(log), cToken: addressAt(data, 0) };
};

const borrow: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 1 || wordCount(data) < 4) return undefined;
  return {
    kind: "ctoken.borrow",
    ...eventOrigin(log),
    borrower: addressAt(data, 0),
    borrowAmount: uintAt(data, 1),
  };
};

const cometSupply: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 1) return undefined;
  return {
    kind: "comet.supply",
    ...eventOrigin(log),
    from: topicAddress(topics[1]!),
    dst: topicAddress(topics[2]!),
    amount: uintAt(data, 0),
  };
};

const cometWithdraw: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 3 || wordCount(data) < 1) return undefined;
  return {
    kind: "comet.withdraw",
    ...eventOrigin(log),
    src: topicAddress(topics[1]!),
    to: topicAddress(topics[2]!),
    amount: uintAt(data, 0),
  };
};

const supplyCollateral: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 1) return undefined;
  return {
    kind: "comet.supplyCollateral",
    ...eventOrigin(log),
    from: topicAddress(topics[1]!),
    dst: topicAddress(topics[2]!),
    asset: topicAddress(topics[3]!),
    amount: uintAt(data, 0),
  };
};

const withdrawCollateral: Decoder = (log) => {
  const { topics, data } = log;
  if (topics.length !== 4 || wordCount(data) < 1) return undefined;
  return {
    kind: "comet.withdrawCollateral",
    ...eventOrigin(log),
    src: topicAddress(topics[1]!),
    to: topicAddress(topics[2]!),
    asset: topicAddress(topics[3]!),
    amount: uintAt(data, 0),
  };
};

/**
 * Lending events: Aave configurators' `ReserveInitialized`, comptrollers' `MarketListed`, cTokens'
 * `Borrow`, and Comet's base and collateral `Supply`/`Withdraw`. Any contract can emit these; the
 * index keeps only those of registry deployments.
 */
export const lendingDecoders: ReadonlyArray<DecoderEntry> = [
  [EVENT_TOPICS.aaveReserveInitialized, reserveInitialized],
  [EVENT_TOPICS.cTokenMarketListed, marketListed],
  [EVENT_TOPICS.cTokenBorrow, borrow],
  [EVENT_TOPICS.cometSupply, cometSupply],
  [EVENT_TOPICS.cometWithdraw, cometWithdraw],
  [EVENT_TOPICS.cometSupplyCollateral, supplyCollateral],
  [EVENT_TOPICS.cometWithdrawCollateral, withdrawCollateral],
];
