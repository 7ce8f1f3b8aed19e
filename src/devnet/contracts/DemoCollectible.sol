// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @notice An OpenZeppelin ERC-721 for NFT activity between demo wallets; only the deployer mints.
contract DemoCollectible is ERC721 {
    address private immutable _minter;

    constructor() ERC721("Devnet Collectible", "DVNFT") {
        _minter = msg.sender;
    }

    function mintRange(address to, uint256 firstId, uint256 count) external {
        require(msg.sender == _minter, "minter");
        for (uint256 id = firstId; id < firstId + count; id++) {
            _mint(to, id);
        }
    }
}
