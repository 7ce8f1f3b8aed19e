// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

interface IStrategyManagerView {
    function stakerStrategyShares(address staker, address strategy) external view returns (uint256);
    function delegation() external view returns (address);
}

interface IStrategyView {
    function sharesToUnderlyingView(uint256 amountShares) external view returns (uint256);
}

interface IDelegationView {
    function delegatedTo(address staker) external view returns (address);
}

/// @title RestakeLens
/// @notice A staker's shares in a restaking strategy (EigenLayer design) and what the strategy says they
/// are worth, in one call: the worth depends on the shares, which a plain multicall cannot chain.
/// @dev Never deployed: placed at a fixed address by an eth_call state override, like LendingLens.
contract RestakeLens {
    function stake(address manager, address strategy, address staker)
        external
        view
        returns (uint256 shares, uint256 underlying)
    {
        shares = IStrategyManagerView(manager).stakerStrategyShares(staker, strategy);
        underlying = shares == 0 ? 0 : IStrategyView(strategy).sharesToUnderlyingView(shares);
    }

    /// @notice The operator the staker delegated to (zero address: none), through the manager's DelegationManager.
    function operatorOf(address manager, address staker) external view returns (address) {
        return IDelegationView(IStrategyManagerView(manager).delegation()).delegatedTo(staker);
    }
}
