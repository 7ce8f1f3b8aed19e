// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title VaultLens
/// @notice ERC-4626 reads that a hostile token cannot turn against the caller: every call to the token
/// gets at most CALL_GAS and must answer exactly one ABI word, or the read fails. A gas burner, a
/// revert bomb or a token that answers anything to any selector costs a bounded amount and is no vault.
/// @dev Never deployed: the service places its runtime code at a fixed address through an eth_call
/// state override and calls it from Multicall3 (allowFailure) in the same batch as its other reads.
contract VaultLens {
    uint256 private constant CALL_GAS = 100_000;
    uint256 private constant ONE_SHARE = 1e18;

    /// @notice The vault's asset and what 1e18 shares are worth in it; reverts unless `token` answers
    /// like an ERC-4626 vault: `asset()` a contract other than itself, `totalAssets()` a word,
    /// `convertToAssets(0)` zero and `convertToAssets(1e18)` a word.
    function probe(address token) external view returns (address asset, uint256 assetsPerShare) {
        (bool ok, uint256 word) = _word(token, abi.encodeWithSignature("asset()"));
        require(ok && word >> 160 == 0, "asset");
        asset = address(uint160(word));
        require(asset != address(0) && asset != token && asset.code.length > 0, "asset code");
        (ok,) = _word(token, abi.encodeWithSignature("totalAssets()"));
        require(ok, "totalAssets");
        uint256 none;
        (ok, none) = _word(token, abi.encodeWithSignature("convertToAssets(uint256)", 0));
        require(ok && none == 0, "convertToAssets(0)");
        (ok, assetsPerShare) = _word(token, abi.encodeWithSignature("convertToAssets(uint256)", ONE_SHARE));
        require(ok, "convertToAssets");
    }

    /// @notice An account's shares of `vault` and what they are worth in its asset (`convertToAssets`).
    function position(address vault, address account) external view returns (uint256 shares, uint256 assets) {
        bool ok;
        (ok, shares) = _word(vault, abi.encodeWithSignature("balanceOf(address)", account));
        require(ok, "balanceOf");
        if (shares == 0) return (0, 0);
        (ok, assets) = _word(vault, abi.encodeWithSignature("convertToAssets(uint256)", shares));
        require(ok, "convertToAssets");
    }

    /// @notice What `shares` of `vault` are worth in its asset (a nested vault's price comes through this).
    function assetsOf(address vault, uint256 shares) external view returns (uint256 assets) {
        bool ok;
        (ok, assets) = _word(vault, abi.encodeWithSignature("convertToAssets(uint256)", shares));
        require(ok, "convertToAssets");
    }

    /// @dev A static call with CALL_GAS that must return exactly 32 bytes; only those are copied.
    function _word(address target, bytes memory data) private view returns (bool ok, uint256 word) {
        assembly {
            ok := staticcall(CALL_GAS, target, add(data, 32), mload(data), 0, 0)
            if iszero(eq(returndatasize(), 32)) { ok := 0 }
            if ok {
                returndatacopy(0, 0, 32)
                word := mload(0)
            }
        }
    }
}
