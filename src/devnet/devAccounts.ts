import { type Address, bytesToHex, type Hex } from "viem";
import { mnemonicToAccount } from "viem/accounts";

/** Anvil's default dev mnemonic: anvil funds the first ten accounts it derives with 10,000 ETH each. */
export const ANVIL_MNEMONIC = "test test test test test test test test test test test junk";

/** Number of accounts anvil funds and unlocks (`--accounts`, default 10). */
export const FUNDED_ACCOUNT_COUNT = 10;

/** An account derived from {@link ANVIL_MNEMONIC}. */
export interface DevAccount {
  readonly index: number;
  readonly address: Address;
  readonly privateKey: Hex;
}

/** Derives account `index` of the default mnemonic (m/44'/60'/0'/0/index). */
export const devAccount = (index: number): DevAccount => {
  const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index });
  const key = account.getHdKey().privateKey;
  if (key === null) throw new Error(`no private key for dev account ${index}`);
  return { index, address: account.address, privateKey: bytesToHex(key) };
};

/** The accounts anvil funds and unlocks on every devnet chain. */
export const fundedAccounts = (): readonly DevAccount[] =>
  Array.from({ length: FUNDED_ACCOUNT_COUNT }, (_, index) => devAccount(index));

/**
 * Which dev account plays which role. Same on every chain. `empty` is index 10: derived from the same
 * mnemonic, so it has a known key, but anvil does not fund it and the seed never touches it. The liquidity
 * position roles (11 and up) are beyond anvil's funded accounts too: the seed funds them with
 * `anvil_setBalance` and sends from them by impersonation (see {@link POSITION_ROLES}).
 */
export const ROLE_ACCOUNT_INDEX = {
  deployer: 0,
  whale: 1,
  paging: 2,
  v2Lp: 3,
  v3Lp: 4,
  v4Lp: 5,
  trader: 6,
  activityA: 7,
  activityB: 8,
  activityC: 9,
  empty: 10,
  liquidity: 11,
  nftSender: 12,
  nftReceiver: 13,
  swapper: 14,
  lendingAll: 15,
  aaveSupplier: 16,
  aaveBorrower: 17,
  aaveDebtOnly: 18,
  aaveLiquidated: 19,
  compoundSupplier: 20,
  compoundBorrower: 21,
  compoundDebtOnly: 22,
  compoundLiquidated: 23,
  vaultHolder: 24,
  restaker: 25,
  restakeOperator: 26,
  pendleHolder: 27,
  everyType: 28,
} as const;

export type WalletRole = keyof typeof ROLE_ACCOUNT_INDEX;

/**
 * Roles that hold the seeded liquidity positions (docs/devnet.md): `liquidity` holds one of every kind,
 * `nftSender` minted the NFT it sent to `nftReceiver` and burned its other ones, `swapper` traded through
 * the positions so they earned fees. Their own accounts keep the balances of the other roles untouched.
 */
export const POSITION_ROLES = ["liquidity", "nftSender", "nftReceiver", "swapper"] as const;
export type PositionRole = (typeof POSITION_ROLES)[number];

/**
 * Roles holding the seeded lending positions (docs/devnet.md, "Lending positions"). `lendingAll` is shared
 * by every lending seed: it is in every lending market of every kind on every chain that has one. The others
 * belong to one protocol family each (`compound*`: the cToken and Comet markets). Funded and impersonated
 * like {@link POSITION_ROLES}.
 */
export const LENDING_ROLES = [
  "lendingAll",
  "aaveSupplier",
  "aaveBorrower",
  "aaveDebtOnly",
  "aaveLiquidated",
  "compoundSupplier",
  "compoundBorrower",
  "compoundDebtOnly",
  "compoundLiquidated",
] as const;
export type LendingRole = (typeof LENDING_ROLES)[number];

/**
 * Roles holding the seeded vault shares and restaking deposits (docs/devnet.md, "Vaults and restaking"):
 * `vaultHolder` holds shares of every vault on every chain, `restaker` deposited into both strategies on
 * ethereum and delegated to `restakeOperator`. Funded and impersonated like {@link POSITION_ROLES}.
 */
export const VAULT_ROLES = ["vaultHolder", "restaker", "restakeOperator"] as const;
export type VaultRole = (typeof VAULT_ROLES)[number];

/**
 * Roles holding the seeded yield-splitting positions (docs/devnet.md, "Pendle"): `pendleHolder` holds PT
 * and YT of both expiries and LP of the market on ethereum, base and optimism. Funded like the others.
 */
export const YIELD_SPLIT_ROLES = ["pendleHolder"] as const;

/**
 * The role holding one position of every type the devnet deploys, on each chain with liquidity positions
 * (docs/devnet.md, "Every position type"). Funded and impersonated like {@link POSITION_ROLES}.
 */
export const EVERY_TYPE_ROLE = "everyType" as const;

/** Every account with ether on the devnet: anvil's funded ten, then the position, lending and vault roles the seed funds. */
export const devnetAccounts = (): readonly DevAccount[] => [
  ...fundedAccounts(),
  ...[...POSITION_ROLES, ...LENDING_ROLES, ...VAULT_ROLES, ...YIELD_SPLIT_ROLES, EVERY_TYPE_ROLE].map(
    (role) => devAccount(ROLE_ACCOUNT_INDEX[role]),
  ),
];

/** The address playing `role`. */
export const roleAddress = (role: WalletRole): Address => devAccount(ROLE_ACCOUNT_INDEX[role]).address;
