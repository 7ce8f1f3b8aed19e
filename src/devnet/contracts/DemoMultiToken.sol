// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

/// @notice An OpenZeppelin ERC-1155 for multi-token activity between demo wallets; only the deployer mints.
contract DemoMultiToken is ERC1155 {
    address private immutable _minter;

    constructor() ERC1155("https://devnet.invalid/items/{id}.json") {
        _minter = msg.sender;
    }

    function mint(address to, uint256 id, uint256 amount) external {
        require(msg.sender == _minter, "minter");
        _mint(to, id, amount, "");
    }
}
