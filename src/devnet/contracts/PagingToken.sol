// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {LegacyERC20} from "./LegacyERC20.sol";

/// @notice Implementation behind the EIP-1167 clones of PagingTokenFactory: a full ERC-20 whose metadata
/// lives in storage, because clones share code and cannot have per-token immutables.
contract PagingToken is LegacyERC20 {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    bool private _initialized;

    function initialize(string calldata name_, string calldata symbol_, address holder, uint256 supply) external {
        require(!_initialized, "initialized");
        _initialized = true;
        name = name_;
        symbol = symbol_;
        _mint(holder, supply);
    }
}
