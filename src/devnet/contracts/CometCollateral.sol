// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {CometAccounting} from "./CometAccounting.sol";

interface ICometPriceFeed {
    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80);
}

/// @notice The collateral side of the devnet's Comet stand-in: the base asset and its price feed, the
/// collateral assets with their factors (Comet's `AssetInfo`, read through `getAssetInfo`), Chainlink-style
/// prices, the `assetsIn` bits and the two collateral checks, with borrow and liquidation factors.
abstract contract CometCollateral is CometAccounting {
    /// @notice One collateral asset as configured at deployment (Comet's `AssetConfig`).
    struct AssetConfig {
        address asset;
        address priceFeed;
        uint8 decimals;
        uint64 borrowCollateralFactor;
        uint64 liquidateCollateralFactor;
        uint64 liquidationFactor;
        uint128 supplyCap;
    }

    error BadAsset();
    error BadPrice();

    address public immutable baseToken;
    address public immutable baseTokenPriceFeed;
    uint8 public immutable decimals;
    uint64 public immutable baseScale;
    AssetInfo[] internal assets;

    constructor(address baseToken_, address baseTokenPriceFeed_, uint64[8] memory rates, AssetConfig[] memory configs)
        CometAccounting(rates)
    {
        baseToken = baseToken_;
        baseTokenPriceFeed = baseTokenPriceFeed_;
        decimals = IERC20Metadata(baseToken_).decimals();
        baseScale = uint64(10 ** decimals);
        for (uint8 i = 0; i < configs.length; i++) {
            AssetConfig memory c = configs[i];
            assets.push(AssetInfo(i, c.asset, c.priceFeed, uint64(10 ** c.decimals), c.borrowCollateralFactor, c.liquidateCollateralFactor, c.liquidationFactor, c.supplyCap));
        }
    }

    function numAssets() external view returns (uint8) {
        return uint8(assets.length);
    }

    function getAssetInfo(uint8 i) public view returns (AssetInfo memory) {
        if (i >= assets.length) revert BadAsset();
        return assets[i];
    }

    function getAssetInfoByAddress(address asset) public view returns (AssetInfo memory) {
        for (uint8 i = 0; i < assets.length; i++) if (assets[i].asset == asset) return assets[i];
        revert BadAsset();
    }

    /// @notice A Chainlink-style feed's answer (8 decimals, USD).
    function getPrice(address priceFeed) public view returns (uint256) {
        (, int256 price,,,) = ICometPriceFeed(priceFeed).latestRoundData();
        if (price <= 0) revert BadPrice();
        return uint256(price);
    }

    function collateralBalanceOf(address account, address asset) external view returns (uint128) {
        return userCollateral[account][asset].balance;
    }

    function isBorrowCollateralized(address account) public view returns (bool) {
        return _shortfall(account, false) <= 0;
    }

    function isLiquidatable(address account) public view returns (bool) {
        return _shortfall(account, true) > 0;
    }

    /// @dev Sets a collateral balance and the account's `assetsIn` bit for that asset.
    function _setCollateral(address account, AssetInfo memory info, uint128 balance) internal {
        userCollateral[account][info.asset].balance = balance;
        uint16 bit = uint16(1) << info.offset;
        if (balance == 0) userBasic[account].assetsIn &= ~bit;
        else userBasic[account].assetsIn |= bit;
    }

    /// @dev USD value (8 decimals) of `amount` of a collateral asset.
    function _collateralValue(AssetInfo memory info, uint256 amount) internal view returns (uint256) {
        return (amount * getPrice(info.priceFeed)) / info.scale;
    }

    /// @dev Debt minus collateral value weighted by the chosen factor, in 8-decimal USD (no debt: minimal).
    function _shortfall(address account, bool liquidation) private view returns (int256) {
        UserBasic memory user = userBasic[account];
        if (user.principal >= 0) return type(int256).min;
        int256 owed = (-_presentValue(user.principal) * int256(getPrice(baseTokenPriceFeed))) / int256(uint256(baseScale));
        for (uint8 i = 0; i < assets.length; i++) {
            if (user.assetsIn & (uint16(1) << i) == 0) continue;
            AssetInfo memory info = assets[i];
            uint256 value = _collateralValue(info, userCollateral[account][info.asset].balance);
            owed -= int256((value * (liquidation ? info.liquidateCollateralFactor : info.borrowCollateralFactor)) / FACTOR_SCALE);
        }
        return owed;
    }
}
