// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @notice Stand-in for EigenLayer's StrategyBase (no official package ships its contracts): one
/// underlying token, shares held for stakers by the StrategyManager, and the real virtual-share
/// offset math (1e3 virtual shares and 1e3 virtual tokens), which keeps the first depositor from
/// inflating the share price. Same external interface for everything the service reads.
contract StrategyBase {
    uint256 internal constant SHARES_OFFSET = 1e3;
    uint256 internal constant BALANCE_OFFSET = 1e3;

    address public immutable strategyManager;
    IERC20 public immutable underlyingToken;
    uint256 public totalShares;

    modifier onlyStrategyManager() {
        require(msg.sender == strategyManager, "StrategyBase.onlyStrategyManager");
        _;
    }

    constructor(address strategyManager_, IERC20 underlyingToken_) {
        strategyManager = strategyManager_;
        underlyingToken = underlyingToken_;
    }

    /// @notice Called by the StrategyManager after it moved `amount` of the token here.
    function deposit(IERC20 token, uint256 amount) external onlyStrategyManager returns (uint256 newShares) {
        require(token == underlyingToken, "StrategyBase.deposit: Can only deposit underlyingToken");
        uint256 priorTotalShares = totalShares;
        uint256 virtualShareAmount = priorTotalShares + SHARES_OFFSET;
        uint256 virtualTokenBalance = _tokenBalance() + BALANCE_OFFSET;
        // The token is already here: the price is the one before this deposit.
        uint256 virtualPriorTokenBalance = virtualTokenBalance - amount;
        newShares = (amount * virtualShareAmount) / virtualPriorTokenBalance;
        require(newShares != 0, "StrategyBase.deposit: newShares cannot be zero");
        totalShares = priorTotalShares + newShares;
    }

    function sharesToUnderlyingView(uint256 amountShares) public view returns (uint256) {
        uint256 virtualTotalShares = totalShares + SHARES_OFFSET;
        uint256 virtualTokenBalance = _tokenBalance() + BALANCE_OFFSET;
        return (virtualTokenBalance * amountShares) / virtualTotalShares;
    }

    function underlyingToSharesView(uint256 amountUnderlying) public view returns (uint256) {
        uint256 virtualTotalShares = totalShares + SHARES_OFFSET;
        uint256 virtualTokenBalance = _tokenBalance() + BALANCE_OFFSET;
        return (amountUnderlying * virtualTotalShares) / virtualTokenBalance;
    }

    function _tokenBalance() internal view returns (uint256) {
        return underlyingToken.balanceOf(address(this));
    }
}
