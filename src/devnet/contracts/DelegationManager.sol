// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Stand-in for the part of EigenLayer's DelegationManager the service reads: operators
/// register, stakers delegate to one, `delegatedTo(staker)` names it. The signature arguments of
/// `delegateTo` are EigenLayer's; this stand-in has no approvers, so it ignores them.
contract DelegationManager {
    struct SignatureWithExpiry {
        bytes signature;
        uint256 expiry;
    }

    event OperatorRegistered(address indexed operator);
    event StakerDelegated(address indexed staker, address indexed operator);

    mapping(address => address) public delegatedTo;
    mapping(address => bool) public isOperator;

    function registerAsOperator() external {
        isOperator[msg.sender] = true;
        delegatedTo[msg.sender] = msg.sender;
        emit OperatorRegistered(msg.sender);
    }

    function delegateTo(address operator, SignatureWithExpiry memory, bytes32) external {
        require(isOperator[operator], "DelegationManager: not an operator");
        require(delegatedTo[msg.sender] == address(0), "DelegationManager: already delegated");
        delegatedTo[msg.sender] = operator;
        emit StakerDelegated(msg.sender, operator);
    }

    function isDelegated(address staker) external view returns (bool) {
        return delegatedTo[staker] != address(0);
    }
}
