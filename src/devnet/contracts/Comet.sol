// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {CometCollateral} from "./CometCollateral.sol";

/// @notice A stand-in for Compound III's Comet, which is not published on npm: the devnet's multi-asset
/// market (docs/devnet.md). It has Comet's interface, events and accounting (CometAccounting, for the
/// base asset's principals and indexes; CometCollateral, for collateral and prices): supply and borrow of
/// the base asset, collateral per asset, borrow and liquidation collateral factors, `absorb` of
/// liquidatable accounts. Left out: rewards tracking, `buyCollateral`, signatures, pausing, extensions.
contract Comet is CometCollateral {
    using SafeERC20 for IERC20;

    error BorrowTooSmall();
    error NotCollateralized();
    error NotLiquidatable();
    error SupplyCapExceeded();
    error Unauthorized();

    event Supply(address indexed from, address indexed dst, uint256 amount);
    event Transfer(address indexed from, address indexed to, uint256 amount);
    event Withdraw(address indexed src, address indexed to, uint256 amount);
    event SupplyCollateral(address indexed from, address indexed dst, address indexed asset, uint256 amount);
    event WithdrawCollateral(address indexed src, address indexed to, address indexed asset, uint256 amount);
    event AbsorbDebt(address indexed absorber, address indexed borrower, uint256 basePaidOut, uint256 usdValue);
    event AbsorbCollateral(address indexed absorber, address indexed borrower, address indexed asset, uint256 collateralAbsorbed, uint256 usdValue);

    address public immutable governor;
    uint104 public immutable baseBorrowMin;
    string public name;
    string public symbol;

    constructor(string memory name_, string memory symbol_, address baseToken_, address baseTokenPriceFeed_, uint104 baseBorrowMin_, uint64[8] memory rates, AssetConfig[] memory configs)
        CometCollateral(baseToken_, baseTokenPriceFeed_, rates, configs)
    {
        governor = msg.sender;
        name = name_;
        symbol = symbol_;
        baseBorrowMin = baseBorrowMin_;
    }

    function totalSupply() external view returns (uint256) {
        (uint64 supplyIndex,) = _accruedIndices();
        return _presentSupply(supplyIndex, totalSupplyBase);
    }

    function totalBorrow() external view returns (uint256) {
        (, uint64 borrowIndex) = _accruedIndices();
        return _presentBorrow(borrowIndex, totalBorrowBase);
    }

    /// @notice Base supplied by `account` with interest up to this second.
    function balanceOf(address account) external view returns (uint256) {
        int104 principal = userBasic[account].principal;
        (uint64 supplyIndex,) = _accruedIndices();
        return principal > 0 ? _presentSupply(supplyIndex, uint104(principal)) : 0;
    }

    /// @notice Base owed by `account` with interest up to this second.
    function borrowBalanceOf(address account) external view returns (uint256) {
        int104 principal = userBasic[account].principal;
        (, uint64 borrowIndex) = _accruedIndices();
        return principal < 0 ? _presentBorrow(borrowIndex, uint104(-principal)) : 0;
    }

    /// @notice Base held beyond what suppliers are owed (negative when bad debt was absorbed).
    function getReserves() external view returns (int256) {
        (uint64 supplyIndex, uint64 borrowIndex) = _accruedIndices();
        uint256 cash = IERC20(baseToken).balanceOf(address(this));
        return int256(cash) - int256(_presentSupply(supplyIndex, totalSupplyBase)) + int256(_presentBorrow(borrowIndex, totalBorrowBase));
    }

    function accrueAccount(address) external {
        _accrue();
    }

    function allow(address manager, bool isAllowed_) external {
        isAllowed[msg.sender][manager] = isAllowed_;
    }

    function hasPermission(address owner, address manager) public view returns (bool) {
        return owner == manager || isAllowed[owner][manager];
    }

    function supply(address asset, uint256 amount) external {
        _supply(msg.sender, msg.sender, asset, amount);
    }

    function supplyTo(address dst, address asset, uint256 amount) external {
        _supply(msg.sender, dst, asset, amount);
    }

    function supplyFrom(address from, address dst, address asset, uint256 amount) external {
        if (!hasPermission(from, msg.sender)) revert Unauthorized();
        _supply(from, dst, asset, amount);
    }

    function withdraw(address asset, uint256 amount) external {
        _withdraw(msg.sender, msg.sender, asset, amount);
    }

    function withdrawTo(address to, address asset, uint256 amount) external {
        _withdraw(msg.sender, to, asset, amount);
    }

    function withdrawFrom(address src, address to, address asset, uint256 amount) external {
        if (!hasPermission(src, msg.sender)) revert Unauthorized();
        _withdraw(src, to, asset, amount);
    }

    function _supply(address from, address dst, address asset, uint256 amount) private {
        if (asset == baseToken) {
            _accrue();
            int104 principal = userBasic[dst].principal;
            // type(uint256).max repays the whole debt, as in Comet.
            if (amount == type(uint256).max) amount = principal < 0 ? uint256(-_presentValue(principal)) : 0;
            IERC20(baseToken).safeTransferFrom(from, address(this), amount);
            (, uint104 supplied) = _setPrincipal(dst, _principalValue(_presentValue(principal) + int256(amount)));
            emit Supply(from, dst, amount);
            if (supplied > 0) emit Transfer(address(0), dst, _presentSupply(baseSupplyIndex, supplied));
            return;
        }
        AssetInfo memory info = getAssetInfoByAddress(asset);
        IERC20(asset).safeTransferFrom(from, address(this), amount);
        TotalsCollateral storage totals = totalsCollateral[asset];
        totals.totalSupplyAsset += uint128(amount);
        if (totals.totalSupplyAsset > info.supplyCap) revert SupplyCapExceeded();
        _setCollateral(dst, info, userCollateral[dst][asset].balance + uint128(amount));
        emit SupplyCollateral(from, dst, asset, amount);
    }

    function _withdraw(address src, address to, address asset, uint256 amount) private {
        if (asset == baseToken) {
            _accrue();
            int104 principal = userBasic[src].principal;
            // type(uint256).max withdraws the whole supply, as in Comet.
            if (amount == type(uint256).max) amount = principal > 0 ? uint256(_presentValue(principal)) : 0;
            int256 balance = _presentValue(principal) - int256(amount);
            (uint104 withdrawn,) = _setPrincipal(src, _principalValue(balance));
            if (balance < 0) {
                if (uint256(-balance) < baseBorrowMin) revert BorrowTooSmall();
                if (!isBorrowCollateralized(src)) revert NotCollateralized();
            }
            IERC20(baseToken).safeTransfer(to, amount);
            emit Withdraw(src, to, amount);
            if (withdrawn > 0) emit Transfer(src, address(0), _presentSupply(baseSupplyIndex, withdrawn));
            return;
        }
        AssetInfo memory info = getAssetInfoByAddress(asset);
        totalsCollateral[asset].totalSupplyAsset -= uint128(amount);
        _setCollateral(src, info, userCollateral[src][asset].balance - uint128(amount));
        if (!isBorrowCollateralized(src)) revert NotCollateralized();
        IERC20(asset).safeTransfer(to, amount);
        emit WithdrawCollateral(src, to, asset, amount);
    }

    /// @notice Takes over liquidatable accounts: their collateral goes to the protocol, valued at the
    /// liquidation factor, and repays their debt; any excess becomes base supply of the account.
    function absorb(address absorber, address[] calldata accounts) external {
        _accrue();
        for (uint256 i = 0; i < accounts.length; i++) _absorb(absorber, accounts[i]);
    }

    function _absorb(address absorber, address account) private {
        if (!isLiquidatable(account)) revert NotLiquidatable();
        int104 oldPrincipal = userBasic[account].principal;
        int256 oldBalance = _presentValue(oldPrincipal);
        uint256 credit;
        for (uint8 i = 0; i < assets.length; i++) {
            AssetInfo memory info = assets[i];
            uint128 seized = userCollateral[account][info.asset].balance;
            if (seized == 0) continue;
            totalsCollateral[info.asset].totalSupplyAsset -= seized;
            _setCollateral(account, info, 0);
            uint256 value = _collateralValue(info, seized);
            credit += (value * info.liquidationFactor) / FACTOR_SCALE;
            emit AbsorbCollateral(absorber, account, info.asset, seized, value);
        }
        uint256 basePrice = getPrice(baseTokenPriceFeed);
        int256 newBalance = oldBalance + int256((credit * baseScale) / basePrice);
        // Debt the collateral does not cover is absorbed by the reserves.
        if (newBalance < 0) newBalance = 0;
        int104 newPrincipal = _principalValue(newBalance);
        _setPrincipal(account, newPrincipal);
        uint256 paidOut = uint256(newBalance - oldBalance);
        emit AbsorbDebt(absorber, account, paidOut, (paidOut * basePrice) / baseScale);
        if (newPrincipal > 0) emit Transfer(address(0), account, _presentSupply(baseSupplyIndex, uint104(newPrincipal)));
    }
}
