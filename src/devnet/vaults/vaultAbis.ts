import { parseAbi } from "viem";

/** The devnet vault (OpenZeppelin ERC4626): its constructor and the deposit the seed makes. */
export const devVaultAbi = parseAbi([
  "constructor(address asset, string name, string symbol)",
  "function deposit(uint256 assets, address receiver) returns (uint256)",
  "function approve(address spender, uint256 amount) returns (bool)",
]);

/** The restaking stand-ins (EigenLayer M2 interface): what the seed deploys and calls. */
export const delegationManagerAbi = parseAbi([
  "constructor()",
  "struct SignatureWithExpiry { bytes signature; uint256 expiry; }",
  "function registerAsOperator()",
  "function delegateTo(address operator, SignatureWithExpiry approverSignatureAndExpiry, bytes32 approverSalt)",
]);

export const strategyManagerAbi = parseAbi([
  "constructor(address delegation)",
  "function addStrategiesToDepositWhitelist(address[] strategies)",
  "function depositIntoStrategy(address strategy, address token, uint256 amount) returns (uint256)",
]);

export const strategyBaseAbi = parseAbi(["constructor(address strategyManager, address underlyingToken)"]);
