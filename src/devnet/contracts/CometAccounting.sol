// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SafeCast} from "@openzeppelin/contracts/utils/math/SafeCast.sol";

/// @notice The state and principal/index accounting of the Comet design (Compound III), written for the
/// devnet: one base asset whose balances are signed principals scaled by a supply or a borrow index that
/// grow every second from utilization-based rates, and collateral balances per asset. Structs, storage
/// getters, index scale (1e15), factor scale (1e18) and price scale (1e8) are those of Comet, so a reader
/// of the real protocol reads this one unchanged. Reward tracking is not modelled (its fields stay 0).
abstract contract CometAccounting {
    using SafeCast for uint256;
    using SafeCast for int256;

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

    struct TotalsBasic {
        uint64 baseSupplyIndex;
        uint64 baseBorrowIndex;
        uint64 trackingSupplyIndex;
        uint64 trackingBorrowIndex;
        uint104 totalSupplyBase;
        uint104 totalBorrowBase;
        uint40 lastAccrualTime;
        uint8 pauseFlags;
    }

    struct UserBasic {
        int104 principal;
        uint64 baseTrackingIndex;
        uint64 baseTrackingAccrued;
        uint16 assetsIn;
        uint8 _reserved;
    }

    struct TotalsCollateral {
        uint128 totalSupplyAsset;
        uint128 _reserved;
    }

    struct UserCollateral {
        uint128 balance;
        uint128 _reserved;
    }

    uint64 internal constant SECONDS_PER_YEAR = 31_536_000;
    uint64 internal constant BASE_INDEX_SCALE = 1e15;
    uint64 internal constant FACTOR_SCALE = 1e18;
    uint64 internal constant PRICE_SCALE = 1e8;

    uint64 public immutable supplyKink;
    uint64 public immutable supplyPerSecondInterestRateSlopeLow;
    uint64 public immutable supplyPerSecondInterestRateSlopeHigh;
    uint64 public immutable supplyPerSecondInterestRateBase;
    uint64 public immutable borrowKink;
    uint64 public immutable borrowPerSecondInterestRateSlopeLow;
    uint64 public immutable borrowPerSecondInterestRateSlopeHigh;
    uint64 public immutable borrowPerSecondInterestRateBase;

    uint64 internal baseSupplyIndex;
    uint64 internal baseBorrowIndex;
    uint104 internal totalSupplyBase;
    uint104 internal totalBorrowBase;
    uint40 internal lastAccrualTime;

    mapping(address => TotalsCollateral) public totalsCollateral;
    mapping(address => mapping(address => bool)) public isAllowed;
    mapping(address => UserBasic) public userBasic;
    mapping(address => mapping(address => UserCollateral)) public userCollateral;

    /// @param rates supply kink, slope low, slope high, base, then the same four for borrowing; kinks are
    /// utilizations (1e18 = 100 %), the rest yearly rates (1e18 = 100 % a year), stored per second.
    constructor(uint64[8] memory rates) {
        supplyKink = rates[0];
        supplyPerSecondInterestRateSlopeLow = rates[1] / SECONDS_PER_YEAR;
        supplyPerSecondInterestRateSlopeHigh = rates[2] / SECONDS_PER_YEAR;
        supplyPerSecondInterestRateBase = rates[3] / SECONDS_PER_YEAR;
        borrowKink = rates[4];
        borrowPerSecondInterestRateSlopeLow = rates[5] / SECONDS_PER_YEAR;
        borrowPerSecondInterestRateSlopeHigh = rates[6] / SECONDS_PER_YEAR;
        borrowPerSecondInterestRateBase = rates[7] / SECONDS_PER_YEAR;
        baseSupplyIndex = BASE_INDEX_SCALE;
        baseBorrowIndex = BASE_INDEX_SCALE;
        lastAccrualTime = uint40(block.timestamp);
    }

    function totalsBasic() external view returns (TotalsBasic memory) {
        return TotalsBasic(baseSupplyIndex, baseBorrowIndex, 0, 0, totalSupplyBase, totalBorrowBase, lastAccrualTime, 0);
    }

    /// @notice Borrowed over supplied base, present values, 1e18 = 100 %.
    function getUtilization() public view returns (uint256) {
        uint256 supplied = _presentSupply(baseSupplyIndex, totalSupplyBase);
        if (supplied == 0) return 0;
        return (_presentBorrow(baseBorrowIndex, totalBorrowBase) * FACTOR_SCALE) / supplied;
    }

    /// @notice Per-second supply rate (1e18 scale) at `utilization`.
    function getSupplyRate(uint256 utilization) public view returns (uint64) {
        return _kinked(utilization, supplyKink, supplyPerSecondInterestRateBase, supplyPerSecondInterestRateSlopeLow, supplyPerSecondInterestRateSlopeHigh);
    }

    /// @notice Per-second borrow rate (1e18 scale) at `utilization`.
    function getBorrowRate(uint256 utilization) public view returns (uint64) {
        return _kinked(utilization, borrowKink, borrowPerSecondInterestRateBase, borrowPerSecondInterestRateSlopeLow, borrowPerSecondInterestRateSlopeHigh);
    }

    function _kinked(uint256 utilization, uint64 kink, uint64 base, uint64 low, uint64 high) private pure returns (uint64) {
        if (utilization <= kink) return (base + (low * utilization) / FACTOR_SCALE).toUint64();
        return (base + (low * uint256(kink)) / FACTOR_SCALE + (high * (utilization - kink)) / FACTOR_SCALE).toUint64();
    }

    /// @dev Both indexes grown by their rate times the seconds since the last accrual (simple interest per
    /// period, compounding at each accrual, as Comet does).
    function _accruedIndices() internal view returns (uint64 supplyIndex, uint64 borrowIndex) {
        supplyIndex = baseSupplyIndex;
        borrowIndex = baseBorrowIndex;
        uint256 elapsed = block.timestamp - lastAccrualTime;
        if (elapsed > 0) {
            uint256 utilization = getUtilization();
            supplyIndex += ((uint256(supplyIndex) * getSupplyRate(utilization) * elapsed) / FACTOR_SCALE).toUint64();
            borrowIndex += ((uint256(borrowIndex) * getBorrowRate(utilization) * elapsed) / FACTOR_SCALE).toUint64();
        }
    }

    function _accrue() internal {
        if (block.timestamp == lastAccrualTime) return;
        (baseSupplyIndex, baseBorrowIndex) = _accruedIndices();
        lastAccrualTime = uint40(block.timestamp);
    }

    function _presentSupply(uint64 index, uint256 principal) internal pure returns (uint256) {
        return (principal * index) / BASE_INDEX_SCALE;
    }

    function _presentBorrow(uint64 index, uint256 principal) internal pure returns (uint256) {
        return (principal * index) / BASE_INDEX_SCALE;
    }

    /// @dev A signed principal as a signed present value, at the stored indexes.
    function _presentValue(int104 principal) internal view returns (int256) {
        if (principal >= 0) return int256(_presentSupply(baseSupplyIndex, uint104(principal)));
        return -int256(_presentBorrow(baseBorrowIndex, uint104(-principal)));
    }

    /// @dev A signed present value as a signed principal: supply rounds down, debt rounds up (as Comet).
    function _principalValue(int256 present) internal view returns (int104) {
        if (present >= 0) return ((uint256(present) * BASE_INDEX_SCALE) / baseSupplyIndex).toInt256().toInt104();
        uint256 debt = uint256(-present);
        return -((debt * BASE_INDEX_SCALE + baseBorrowIndex - 1) / baseBorrowIndex).toInt256().toInt104();
    }

    /// @dev How a principal change splits into debt repaid and supply added.
    function _repayAndSupply(int104 oldPrincipal, int104 newPrincipal) internal pure returns (uint104 repay, uint104 supplied) {
        if (newPrincipal < oldPrincipal) return (0, 0);
        if (newPrincipal <= 0) return (uint104(newPrincipal - oldPrincipal), 0);
        if (oldPrincipal >= 0) return (0, uint104(newPrincipal - oldPrincipal));
        return (uint104(-oldPrincipal), uint104(newPrincipal));
    }

    /// @dev How a principal change splits into supply withdrawn and debt added.
    function _withdrawAndBorrow(int104 oldPrincipal, int104 newPrincipal) internal pure returns (uint104 withdrawn, uint104 borrowed) {
        if (newPrincipal > oldPrincipal) return (0, 0);
        if (newPrincipal >= 0) return (uint104(oldPrincipal - newPrincipal), 0);
        if (oldPrincipal <= 0) return (0, uint104(oldPrincipal - newPrincipal));
        return (uint104(oldPrincipal), uint104(-newPrincipal));
    }

    /// @dev Moves an account's principal, keeping the market's totals in step.
    function _setPrincipal(address account, int104 newPrincipal) internal returns (uint104 withdrawn, uint104 supplied) {
        int104 oldPrincipal = userBasic[account].principal;
        (uint104 repay, uint104 added) = _repayAndSupply(oldPrincipal, newPrincipal);
        (uint104 taken, uint104 borrowed) = _withdrawAndBorrow(oldPrincipal, newPrincipal);
        totalSupplyBase = totalSupplyBase + added - taken;
        totalBorrowBase = totalBorrowBase + borrowed - repay;
        userBasic[account].principal = newPrincipal;
        return (taken, added);
    }
}
