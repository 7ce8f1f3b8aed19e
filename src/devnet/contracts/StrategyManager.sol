// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {StrategyBase} from "./StrategyBase.sol";
import {DelegationManager} from "./DelegationManager.sol";

/// @notice Stand-in for EigenLayer's StrategyManager (M2 interface): stakers deposit a token into a
/// whitelisted strategy and the manager records their shares. `getDeposits`, `stakerStrategyShares`,
/// `stakerStrategyList`, `depositIntoStrategy`, `delegation` and the `Deposit` event are EigenLayer's.
contract StrategyManager {
    using SafeERC20 for IERC20;

    event Deposit(address staker, IERC20 token, StrategyBase strategy, uint256 shares);
    event StrategyAddedToDepositWhitelist(StrategyBase strategy);

    address public immutable owner;
    DelegationManager public immutable delegation;
    mapping(address => mapping(StrategyBase => uint256)) public stakerStrategyShares;
    mapping(address => StrategyBase[]) public stakerStrategyList;
    mapping(StrategyBase => bool) public strategyIsWhitelistedForDeposit;

    constructor(DelegationManager delegation_) {
        owner = msg.sender;
        delegation = delegation_;
    }

    function addStrategiesToDepositWhitelist(StrategyBase[] calldata strategies) external {
        require(msg.sender == owner, "StrategyManager: not owner");
        for (uint256 i = 0; i < strategies.length; i++) {
            strategyIsWhitelistedForDeposit[strategies[i]] = true;
            emit StrategyAddedToDepositWhitelist(strategies[i]);
        }
    }

    function depositIntoStrategy(StrategyBase strategy, IERC20 token, uint256 amount) external returns (uint256 shares) {
        require(strategyIsWhitelistedForDeposit[strategy], "StrategyManager: strategy not whitelisted");
        token.safeTransferFrom(msg.sender, address(strategy), amount);
        shares = strategy.deposit(token, amount);
        if (stakerStrategyShares[msg.sender][strategy] == 0) stakerStrategyList[msg.sender].push(strategy);
        stakerStrategyShares[msg.sender][strategy] += shares;
        emit Deposit(msg.sender, token, strategy, shares);
    }

    function stakerStrategyListLength(address staker) external view returns (uint256) {
        return stakerStrategyList[staker].length;
    }

    function getDeposits(address staker) external view returns (StrategyBase[] memory, uint256[] memory) {
        uint256 length = stakerStrategyList[staker].length;
        uint256[] memory shares = new uint256[](length);
        for (uint256 i = 0; i < length; i++) shares[i] = stakerStrategyShares[staker][stakerStrategyList[staker][i]];
        return (stakerStrategyList[staker], shares);
    }
}
