import { parseAbi } from "viem";

/** The Pendle V2 calls the devnet seed makes (constructors of the contracts it deploys, then setup and minting). */
export const pendleSyAbi = parseAbi([
  "constructor(string name, string symbol, address erc4626)",
  "function deposit(address receiver, address tokenIn, uint256 amountTokenToDeposit, uint256 minSharesOut) payable returns (uint256)",
]);

export const pendleYieldFactoryAbi = parseAbi([
  "constructor(address ytCreationCodeContractA, uint256 ytCreationCodeSizeA, address ytCreationCodeContractB, uint256 ytCreationCodeSizeB)",
  "function initialize(uint96 expiryDivisor, uint128 interestFeeRate, uint128 rewardFeeRate, address treasury)",
  "function createYieldContract(address SY, uint32 expiry, bool doCacheIndexSameBlock) returns (address PT, address YT)",
  "function getPT(address SY, uint256 expiry) view returns (address)",
  "function getYT(address SY, uint256 expiry) view returns (address)",
]);

export const pendleYieldTokenAbi = parseAbi([
  "function mintPY(address receiverPT, address receiverYT) returns (uint256)",
]);

export const pendleGaugeControllerAbi = parseAbi([
  "constructor(address votingController, address pendle, address marketFactory, address marketFactory2)",
]);

export const pendleVotingEscrowAbi = parseAbi([
  "constructor(address pendle, address pendleMsgSendEndpoint, uint256 initialApproxDestinationGas)",
]);

export const pendleMarketFactoryAbi = parseAbi([
  "constructor(address yieldContractFactory, address marketCreationCodeContractA, uint256 marketCreationCodeSizeA, address marketCreationCodeContractB, uint256 marketCreationCodeSizeB, address treasury, uint8 reserveFeePercent, address vePendle, address gaugeController)",
  "function createNewMarket(address PT, int256 scalarRoot, int256 initialAnchor, uint80 lnFeeRateRoot) returns (address market)",
  "event CreateNewMarket(address indexed market, address indexed PT, int256 scalarRoot, int256 initialAnchor, uint256 lnFeeRateRoot)",
]);

export const pendleMarketAbi = parseAbi([
  "function mint(address receiver, uint256 netSyDesired, uint256 netPtDesired) returns (uint256 netLpOut, uint256 netSyUsed, uint256 netPtUsed)",
]);
