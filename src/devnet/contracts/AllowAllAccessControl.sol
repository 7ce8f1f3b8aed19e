// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The access-control manager a Venus comptroller consults before its restricted setters
/// (`_supportMarket`, `_setCollateralFactor`, caps, liquidation incentive). Venus 0.7.0 ships only the
/// interface; on the devnet every caller is allowed, the comptroller's own admin checks still apply.
contract AllowAllAccessControl {
    function isAllowedToCall(address, string calldata) external pure returns (bool) {
        return true;
    }
}
