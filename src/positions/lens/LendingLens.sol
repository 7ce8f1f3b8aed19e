// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

interface IComptrollerView {
    function getAssetsIn(address account) external view returns (address[] memory);
    function oracle() external view returns (address);
}

interface ICTokenView {
    function getAccountSnapshot(address account) external view returns (uint256, uint256, uint256, uint256);
}

interface ICTokenOracle {
    function getUnderlyingPrice(address cToken) external view returns (uint256);
}

interface ICometView {
    struct AssetInfo {
        uint8 offset;
        address asset;
        address priceFeed;
        uint64 scale;
        uint64 borrowCollateralFactor;
        uint64 liquidateCollateralFactor;
        uint64 liquidationFactor;
        uint128 supplyCap;
    }

    function numAssets() external view returns (uint8);
    function getAssetInfo(uint8 i) external view returns (AssetInfo memory);
    function getPrice(address priceFeed) external view returns (uint256);
    function baseTokenPriceFeed() external view returns (address);
    function baseScale() external view returns (uint256);
    function borrowBalanceOf(address account) external view returns (uint256);
    function collateralBalanceOf(address account, address asset) external view returns (uint128);
    function getUtilization() external view returns (uint256);
    function getSupplyRate(uint256 utilization) external view returns (uint64);
    function getBorrowRate(uint256 utilization) external view returns (uint64);
}

/// @title LendingLens
/// @notice An account's standing in a lending market as the market itself computes it, in one call:
/// collateral weighted by the factor at which the account is liquidated, and debt, both in the
/// market's own price units. Health factor = collateral / debt.
/// @dev Never deployed: the service places its runtime code at a fixed address through an eth_call
/// state override and calls it from Multicall3 in the same batch as every other read.
contract LendingLens {
    uint256 private constant EXP = 1e18;

    /// @notice cToken design (Compound V2 and forks): the comptroller's liquidity computation over the
    /// markets the account has entered, each supply weighted by the market's collateral factor at the
    /// comptroller oracle's prices (getHypotheticalAccountLiquidity with no change).
    function cTokenAccount(address comptroller, address account) external view returns (uint256 collateral, uint256 debt) {
        address[] memory assets = IComptrollerView(comptroller).getAssetsIn(account);
        address oracle = IComptrollerView(comptroller).oracle();
        for (uint256 i = 0; i < assets.length; i++) {
            (uint256 err, uint256 balance, uint256 borrowed, uint256 exchangeRate) =
                ICTokenView(assets[i]).getAccountSnapshot(account);
            require(err == 0, "snapshot");
            uint256 price = ICTokenOracle(oracle).getUnderlyingPrice(assets[i]);
            require(price != 0, "price");
            uint256 factor = _collateralFactor(comptroller, assets[i]);
            uint256 perToken = (((factor * exchangeRate) / EXP) * price) / EXP;
            collateral += (perToken * balance) / EXP;
            debt += (price * borrowed) / EXP;
        }
    }

    /// @notice Comet design: collateral at each asset's price feed weighted by its liquidation collateral
    /// factor, and the base debt at the base price feed (isLiquidatable's terms), with the supply and
    /// borrow rates per second at the current utilization.
    function cometAccount(address comet, address account)
        external
        view
        returns (uint256 collateral, uint256 debt, uint64 supplyRate, uint64 borrowRate)
    {
        ICometView market = ICometView(comet);
        uint8 count = market.numAssets();
        for (uint8 i = 0; i < count; i++) {
            ICometView.AssetInfo memory info = market.getAssetInfo(i);
            uint256 held = market.collateralBalanceOf(account, info.asset);
            if (held == 0) continue;
            uint256 value = (held * market.getPrice(info.priceFeed)) / info.scale;
            collateral += (value * info.liquidateCollateralFactor) / EXP;
        }
        debt = (market.borrowBalanceOf(account) * market.getPrice(market.baseTokenPriceFeed())) / market.baseScale();
        uint256 utilization = market.getUtilization();
        supplyRate = market.getSupplyRate(utilization);
        borrowRate = market.getBorrowRate(utilization);
    }

    /// @dev The second word of `markets(cToken)`: Compound and its forks put the collateral factor there.
    function _collateralFactor(address comptroller, address cToken) private view returns (uint256) {
        (bool ok, bytes memory data) = comptroller.staticcall(abi.encodeWithSignature("markets(address)", cToken));
        require(ok && data.length >= 64, "markets");
        (, uint256 factor) = abi.decode(data, (bool, uint256));
        return factor;
    }
}
