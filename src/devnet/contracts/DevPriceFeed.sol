// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice A Chainlink-style price feed (AggregatorV3 reads, 8 decimals) whose answer its owner sets: the
/// devnet's Comet markets price their assets through it, and a price drop is one `setAnswer` away.
contract DevPriceFeed {
    address public immutable owner;
    string public description;
    int256 private answer;
    uint80 private roundId;
    uint256 private updatedAt;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    constructor(string memory description_, int256 answer_) {
        owner = msg.sender;
        description = description_;
        _set(answer_);
    }

    function decimals() external pure returns (uint8) {
        return 8;
    }

    function version() external pure returns (uint256) {
        return 4;
    }

    function setAnswer(int256 answer_) external {
        require(msg.sender == owner, "only owner");
        _set(answer_);
    }

    function latestAnswer() external view returns (int256) {
        return answer;
    }

    function latestRoundData() external view returns (uint80, int256, uint256, uint256, uint80) {
        return (roundId, answer, updatedAt, updatedAt, roundId);
    }

    function _set(int256 answer_) private {
        answer = answer_;
        roundId += 1;
        updatedAt = block.timestamp;
        emit AnswerUpdated(answer_, roundId, block.timestamp);
    }
}
