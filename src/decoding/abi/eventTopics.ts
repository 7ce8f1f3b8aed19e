import { toEventSelector } from "viem";

/**
 * Topic 0 (keccak256 of the canonical signature) of every decoded event. User-defined Solidity types
 * appear as their underlying type: V4 `PoolId` is `bytes32`, `Currency` and `IHooks` are `address`.
 * ERC-20 and ERC-721 share `Transfer` and `Approval`; the topic count tells them apart.
 */
export const EVENT_TOPICS = {
  transfer: toEventSelector("Transfer(address,address,uint256)"),
  approval: toEventSelector("Approval(address,address,uint256)"),
  approvalForAll: toEventSelector("ApprovalForAll(address,address,bool)"),
  transferSingle: toEventSelector("TransferSingle(address,address,address,uint256,uint256)"),
  transferBatch: toEventSelector("TransferBatch(address,address,address,uint256[],uint256[])"),
  deposit: toEventSelector("Deposit(address,uint256)"),
  withdrawal: toEventSelector("Withdrawal(address,uint256)"),
  v2Swap: toEventSelector("Swap(address,uint256,uint256,uint256,uint256,address)"),
  v2Mint: toEventSelector("Mint(address,uint256,uint256)"),
  v2Burn: toEventSelector("Burn(address,uint256,uint256,address)"),
  v2Sync: toEventSelector("Sync(uint112,uint112)"),
  v2PairCreated: toEventSelector("PairCreated(address,address,address,uint256)"),
  v3Swap: toEventSelector("Swap(address,address,int256,int256,uint160,uint128,int24)"),
  v3Mint: toEventSelector("Mint(address,address,int24,int24,uint128,uint256,uint256)"),
  v3Burn: toEventSelector("Burn(address,int24,int24,uint128,uint256,uint256)"),
  v3Collect: toEventSelector("Collect(address,address,int24,int24,uint128,uint128)"),
  v3PoolCreated: toEventSelector("PoolCreated(address,address,uint24,int24,address)"),
  v4Initialize: toEventSelector("Initialize(bytes32,address,address,uint24,int24,address,uint160,int24)"),
  v4Swap: toEventSelector("Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)"),
  v4ModifyLiquidity: toEventSelector("ModifyLiquidity(bytes32,address,int24,int24,int256,bytes32)"),
  algebraPool: toEventSelector("Pool(address,address,address)"),
  aaveReserveInitialized: toEventSelector("ReserveInitialized(address,address,address,address,address)"),
  cTokenMarketListed: toEventSelector("MarketListed(address)"),
  cTokenBorrow: toEventSelector("Borrow(address,uint256,uint256,uint256)"),
  cometSupply: toEventSelector("Supply(address,address,uint256)"),
  cometWithdraw: toEventSelector("Withdraw(address,address,uint256)"),
  cometSupplyCollateral: toEventSelector("SupplyCollateral(address,address,address,uint256)"),
  cometWithdrawCollateral: toEventSelector("WithdrawCollateral(address,address,address,uint256)"),
  restakeDeposit: toEventSelector("Deposit(address,address,address,uint256)"),
  pendleCreateYieldContract: toEventSelector("CreateYieldContract(address,uint256,address,address)"),
  pendleCreateNewMarket: toEventSelector("CreateNewMarket(address,address,int256,int256,uint256)"),
} as const;
