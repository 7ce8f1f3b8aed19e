// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {LegacyERC20} from "./LegacyERC20.sol";

/// @notice A token without name(): metadata readers must fall back to the symbol.
contract NamelessToken is LegacyERC20 {
    string public symbol;
    uint8 public immutable decimals;

    constructor(string memory symbol_, uint8 decimals_, address holder, uint256 supply) {
        symbol = symbol_;
        decimals = decimals_;
        _mint(holder, supply);
    }
}
