// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {LegacyERC20} from "./LegacyERC20.sol";

/// @notice A token whose name() and symbol() return bytes32, as MKR and SAI do on mainnet.
contract Bytes32Token is LegacyERC20 {
    bytes32 public immutable name;
    bytes32 public immutable symbol;
    uint8 public constant decimals = 18;

    constructor(bytes32 name_, bytes32 symbol_, address holder, uint256 supply) {
        name = name_;
        symbol = symbol_;
        _mint(holder, supply);
    }
}
