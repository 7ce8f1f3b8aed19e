// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IHooks} from "@uniswap/v4-core/src/interfaces/IHooks.sol";
import {BalanceDelta} from "@uniswap/v4-core/src/types/BalanceDelta.sol";
import {PoolId, PoolIdLibrary} from "@uniswap/v4-core/src/types/PoolId.sol";
import {PoolKey} from "@uniswap/v4-core/src/types/PoolKey.sol";
import {SwapParams} from "@uniswap/v4-core/src/types/PoolOperation.sol";

/// @notice A Uniswap V4 hook that counts the swaps of each pool in afterSwap. The PoolManager calls only the
/// hooks whose flags are set in the hook's address, so it must live at an address whose low 14 bits are
/// exactly AFTER_SWAP_FLAG (0x40); the devnet places its runtime code there with anvil_setCode.
contract SwapCounterHook {
    using PoolIdLibrary for PoolKey;

    address public immutable poolManager;
    mapping(PoolId => uint256) public swapCount;

    constructor(address manager) {
        poolManager = manager;
    }

    function afterSwap(address, PoolKey calldata key, SwapParams calldata, BalanceDelta, bytes calldata)
        external
        returns (bytes4, int128)
    {
        require(msg.sender == poolManager, "only the pool manager");
        swapCount[key.toId()] += 1;
        return (IHooks.afterSwap.selector, 0);
    }
}
