// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// Read-only lens, never deployed: its code is placed by an eth_call state override. It reads
/// `balanceOf(owner)` of many tokens in one call, the way MetaMask's balance checker and
/// eth-scan do, with two differences that matter on a real chain:
/// - each token's call gets at most GAS_PER_TOKEN gas and at most 32 bytes of its answer are
///   copied, so a token that burns gas, reverts or answers a megabyte costs its own slot only;
/// - when the gas left cannot give the next token its full allowance the whole call reverts,
///   so a batch too large for the node's gas cap fails loudly (and is split by the caller)
///   instead of answering zero for the tokens it could not afford.
contract BalanceSweepLens {
    uint256 private constant GAS_PER_TOKEN = 60_000;
    /// What the loop itself spends per token besides the call, and the return's copy.
    uint256 private constant GAS_RESERVE = 20_000;

    error OutOfGas(uint256 index);

    /// Balances of `owner` in each of `tokens`, 0 where a token has no code, reverts or answers
    /// fewer than 32 bytes.
    function balances(address owner, address[] calldata tokens) external view returns (uint256[] memory out) {
        out = new uint256[](tokens.length);
        for (uint256 i = 0; i < tokens.length; i++) {
            if (gasleft() < GAS_PER_TOKEN + GAS_RESERVE) revert OutOfGas(i);
            address token = tokens[i];
            if (token.code.length == 0) continue;
            uint256 value;
            assembly {
                let p := mload(0x40)
                mstore(p, shl(224, 0x70a08231))
                mstore(add(p, 4), owner)
                let ok := staticcall(GAS_PER_TOKEN, token, p, 36, p, 32)
                if and(ok, gt(returndatasize(), 31)) { value := mload(p) }
            }
            out[i] = value;
        }
    }
}
