// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Clones} from "@openzeppelin/contracts/proxy/Clones.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";
import {PagingToken} from "./PagingToken.sol";

/// @notice Creates many distinct ERC-20s per transaction (minimal proxies, ~45 bytes of code each, so the
/// devnet's state dump stays small) and mints each to one holder with a real Transfer event.
contract PagingTokenFactory {
    address public immutable implementation;
    uint256 public created;

    event TokenCreated(uint256 indexed index, address token);

    constructor() {
        implementation = address(new PagingToken());
    }

    function createBatch(address holder, uint256 count, uint256 amount) external {
        uint256 first = created;
        for (uint256 i = first; i < first + count; i++) {
            address token = Clones.clone(implementation);
            string memory index = Strings.toString(i + 1);
            PagingToken(token).initialize(string.concat("Paging Token ", index), string.concat("PG", index), holder, amount);
            emit TokenCreated(i + 1, token);
        }
        created = first + count;
    }
}
