// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {BitMath} from "@uniswap/v4-core/src/libraries/BitMath.sol";
import {FullMath} from "@uniswap/v4-core/src/libraries/FullMath.sol";
import {TickMath} from "@uniswap/v4-core/src/libraries/TickMath.sol";

interface IV3PoolTicks {
    function tickBitmap(int16 wordPosition) external view returns (uint256);
    function ticks(int24 tick)
        external
        view
        returns (uint128 liquidityGross, int128 liquidityNet, uint256, uint256, int56, uint160, uint32, bool);
}

interface IStateView {
    function getSlot0(bytes32 poolId) external view returns (uint160 sqrtPriceX96, int24 tick, uint24, uint24);
    function getLiquidity(bytes32 poolId) external view returns (uint128 liquidity);
    function getTickBitmap(bytes32 poolId, int16 tick) external view returns (uint256 tickBitmap);
    function getTickLiquidity(bytes32 poolId, int24 tick) external view returns (uint128, int128 liquidityNet);
}

/// @title PoolDepthLens
/// @notice Measures a concentrated-liquidity pool by its own positions: the tokens its liquidity pays
/// out while the price moves from where it is to 1.02 times it (token0) and to 1/1.02 times it
/// (token1), walking the initialised ticks in between exactly as a swap would. Balances held by the
/// pool or its pool manager (donations, ERC-6909 claims, other pools' tokens, fees) never count.
/// @dev Never deployed: the service places its runtime code at a fixed address through an eth_call
/// state override and calls it from Multicall3 in the same batch as every other read.
contract PoolDepthLens {
    /// @dev sqrt(1.02) scaled by 1e18: the band is a factor of 1.02 in price, so sqrt(1.02) in sqrt price.
    uint256 private constant SQRT_BAND_E18 = 1_009_950_493_836_207_795;
    uint256 private constant Q96 = 0x1000000000000000000000000;
    /// @dev Bounds the walk (each step reads one bitmap word and at most one tick) on pools with very
    /// many initialised ticks in the band; the depth is then an underestimate, never an overestimate.
    uint256 private constant MAX_STEPS = 256;

    struct Depth {
        uint160 sqrtPriceX96;
        int24 tick;
        uint128 liquidity;
        /// @dev Raw token0 paid out between the price and 1.02 times it.
        uint256 depth0;
        /// @dev Raw token1 paid out between the price and 1/1.02 times it.
        uint256 depth1;
    }

    /// @dev Where tick data comes from: a V3-design pool, or a V4 pool through StateView.
    struct Source {
        address target;
        bytes32 poolId;
        int24 spacing;
        bool v4;
    }

    /// @notice Depth of a Uniswap V3-design pool (and its forks, whose slot0 may carry wider fields).
    function v3(address pool, int24 tickSpacing) external view returns (Depth memory d) {
        // slot0 is read by its first two words only: forks widen the later fields.
        (bool ok, bytes memory data) = pool.staticcall(abi.encodeWithSelector(0x3850c7bd));
        require(ok && data.length >= 64, "slot0");
        (uint256 sqrtWord, int256 tickWord) = abi.decode(data, (uint256, int256));
        (ok, data) = pool.staticcall(abi.encodeWithSelector(0x1a686502));
        require(ok && data.length >= 32, "liquidity");
        d.sqrtPriceX96 = uint160(sqrtWord);
        d.tick = int24(tickWord);
        d.liquidity = uint128(abi.decode(data, (uint256)));
        _walk(Source(pool, bytes32(0), tickSpacing, false), d);
    }

    /// @notice Depth of a Uniswap V4 pool, read through the pool manager's StateView.
    function v4(address stateView, bytes32 poolId, int24 tickSpacing) external view returns (Depth memory d) {
        (d.sqrtPriceX96, d.tick,,) = IStateView(stateView).getSlot0(poolId);
        d.liquidity = IStateView(stateView).getLiquidity(poolId);
        _walk(Source(stateView, poolId, tickSpacing, true), d);
    }

    function _walk(Source memory src, Depth memory d) private view {
        if (d.sqrtPriceX96 < TickMath.MIN_SQRT_PRICE || d.sqrtPriceX96 >= TickMath.MAX_SQRT_PRICE) return;
        if (src.spacing <= 0) return;
        d.depth1 = _walkDown(src, d);
        d.depth0 = _walkUp(src, d);
    }

    /// @dev Token1 paid out as the price falls to 1/1.02 of itself (a zeroForOne swap's path).
    function _walkDown(Source memory src, Depth memory d) private view returns (uint256 out) {
        uint256 low = uint256(d.sqrtPriceX96) * 1e18 / SQRT_BAND_E18;
        uint160 target = low < TickMath.MIN_SQRT_PRICE ? TickMath.MIN_SQRT_PRICE : uint160(low);
        uint160 price = d.sqrtPriceX96;
        uint128 liquidity = d.liquidity;
        int24 tick = d.tick;
        for (uint256 step = 0; step < MAX_STEPS; ++step) {
            (int24 next, bool initialized) = _nextTick(src, tick, true);
            if (next < TickMath.MIN_TICK) next = TickMath.MIN_TICK;
            uint160 edge = TickMath.getSqrtPriceAtTick(next);
            uint160 stop = edge < target ? target : edge;
            if (price > stop) out += FullMath.mulDiv(liquidity, price - stop, Q96);
            if (stop == target) break;
            // Crossing a tick downwards removes the positions that start there.
            if (initialized) liquidity = _apply(liquidity, -int256(_liquidityNet(src, next)));
            price = edge;
            tick = next - 1;
        }
    }

    /// @dev Token0 paid out as the price rises to 1.02 times itself (a oneForZero swap's path).
    function _walkUp(Source memory src, Depth memory d) private view returns (uint256 out) {
        uint256 high = uint256(d.sqrtPriceX96) * SQRT_BAND_E18 / 1e18;
        uint160 target = high >= TickMath.MAX_SQRT_PRICE ? TickMath.MAX_SQRT_PRICE - 1 : uint160(high);
        uint160 price = d.sqrtPriceX96;
        uint128 liquidity = d.liquidity;
        int24 tick = d.tick;
        for (uint256 step = 0; step < MAX_STEPS; ++step) {
            (int24 next, bool initialized) = _nextTick(src, tick, false);
            if (next > TickMath.MAX_TICK) next = TickMath.MAX_TICK;
            uint160 edge = TickMath.getSqrtPriceAtTick(next);
            uint160 stop = edge > target ? target : edge;
            if (stop > price) out += FullMath.mulDiv(uint256(liquidity) << 96, stop - price, stop) / price;
            if (stop == target) break;
            if (initialized) liquidity = _apply(liquidity, int256(_liquidityNet(src, next)));
            price = edge;
            tick = next;
        }
    }

    /// @dev Liquidity after adding a signed delta; never below zero (a pool's own state never asks for it).
    function _apply(uint128 liquidity, int256 delta) private pure returns (uint128) {
        int256 sum = int256(uint256(liquidity)) + delta;
        return sum <= 0 ? 0 : uint128(uint256(sum));
    }

    /// @dev The next initialised tick within one bitmap word, as Uniswap's TickBitmap finds it:
    /// at or below `tick` when `lte`, above it otherwise; a word's edge when none is initialised.
    function _nextTick(Source memory src, int24 tick, bool lte) private view returns (int24 next, bool initialized) {
        int24 spacing = src.spacing;
        int24 compressed = tick / spacing;
        if (tick < 0 && tick % spacing != 0) compressed--;
        if (lte) {
            (int16 word, uint8 bit) = _position(compressed);
            uint256 masked = _bitmap(src, word) & (type(uint256).max >> (255 - uint256(bit)));
            initialized = masked != 0;
            next = initialized
                ? (compressed - int24(uint24(bit - BitMath.mostSignificantBit(masked)))) * spacing
                : (compressed - int24(uint24(bit))) * spacing;
        } else {
            (int16 word, uint8 bit) = _position(compressed + 1);
            uint256 masked = _bitmap(src, word) & ~((uint256(1) << bit) - 1);
            initialized = masked != 0;
            next = initialized
                ? (compressed + 1 + int24(uint24(BitMath.leastSignificantBit(masked) - bit))) * spacing
                : (compressed + 1 + int24(uint24(type(uint8).max - bit))) * spacing;
        }
    }

    function _position(int24 compressed) private pure returns (int16 word, uint8 bit) {
        word = int16(compressed >> 8);
        bit = uint8(uint24(compressed) & 0xff);
    }

    function _bitmap(Source memory src, int16 word) private view returns (uint256) {
        return src.v4
            ? IStateView(src.target).getTickBitmap(src.poolId, word)
            : IV3PoolTicks(src.target).tickBitmap(word);
    }

    function _liquidityNet(Source memory src, int24 tick) private view returns (int128 net) {
        if (src.v4) (, net) = IStateView(src.target).getTickLiquidity(src.poolId, tick);
        else (, net,,,,,,) = IV3PoolTicks(src.target).ticks(tick);
    }
}
