import { createRequire } from "node:module";
import type { Address, Hex } from "viem";

const require = createRequire(import.meta.url);

const ROOT = "@pendle/core-v2/build/artifacts/contracts";

/** Hardhat artifact paths of the Pendle V2 contracts the devnet deploys, as `@pendle/core-v2@4.7.2` publishes them. */
const PENDLE_ARTIFACT_PATHS = {
  ERC4626SY: `${ROOT}/core/StandardizedYield/implementations/PendleERC4626SY.sol/PendleERC4626SY.json`,
  YieldContractFactory: `${ROOT}/core/YieldContracts/PendleYieldContractFactory.sol/PendleYieldContractFactory.json`,
  YieldToken: `${ROOT}/core/YieldContracts/PendleYieldToken.sol/PendleYieldToken.json`,
  OracleLib: `${ROOT}/core/Market/OracleLib.sol/OracleLib.json`,
  MarketV3: `${ROOT}/core/Market/v3/PendleMarketV3.sol/PendleMarketV3.json`,
  MarketFactoryV3: `${ROOT}/core/Market/v3/PendleMarketFactoryV3.sol/PendleMarketFactoryV3.json`,
  GaugeController: `${ROOT}/LiquidityMining/GaugeController/PendleGaugeControllerMainchainUpg.sol/PendleGaugeControllerMainchainUpg.json`,
  VotingEscrow: `${ROOT}/LiquidityMining/VotingEscrow/VotingEscrowPendleMainchain.sol/VotingEscrowPendleMainchain.json`,
} as const;

/** A Pendle contract the devnet deploys from its npm artifact. */
export type PendleContract = keyof typeof PENDLE_ARTIFACT_PATHS;

interface HardhatArtifact {
  readonly bytecode: string;
  readonly linkReferences: Record<string, Record<string, readonly { start: number; length: number }[]>>;
}

/** Creation bytecode of a Pendle contract with its libraries (by name, e.g. `OracleLib`) linked in. */
export const pendleBytecode = (
  name: PendleContract,
  libraries: Readonly<Record<string, Address>> = {},
): Hex => {
  const artifact = require(PENDLE_ARTIFACT_PATHS[name]) as HardhatArtifact;
  let code = artifact.bytecode.replace(/^0x/, "");
  for (const byLibrary of Object.values(artifact.linkReferences))
    for (const [library, offsets] of Object.entries(byLibrary)) {
      const address = libraries[library];
      if (address === undefined) throw new Error(`${name} needs library ${library} linked`);
      for (const { start, length } of offsets)
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
    }
  return `0x${code}`;
};

/**
 * Pendle's factories keep creation code too large for one contract in two "code contracts"
 * (BaseSplitCodeFactory): each half is the runtime code of a contract whose creation code is this
 * prefix (copy everything after the 32-byte header and return it) followed by 19 bytes of `fe`
 * padding the header, then the half itself.
 */
const CODE_CONTRACT_PREFIX = `602038038060206000396000f3${"fe".repeat(19)}`;

/** The creation code `code` split in two, as deploy data of its two code contracts and their sizes. */
export const splitCreationCode = (
  code: Hex,
): { readonly a: Hex; readonly sizeA: bigint; readonly b: Hex; readonly sizeB: bigint } => {
  const bytes = code.slice(2);
  const length = bytes.length / 2;
  const sizeA = Math.floor(length / 2);
  return {
    a: `0x${CODE_CONTRACT_PREFIX}${bytes.slice(0, sizeA * 2)}`,
    sizeA: BigInt(sizeA),
    b: `0x${CODE_CONTRACT_PREFIX}${bytes.slice(sizeA * 2)}`,
    sizeB: BigInt(length - sizeA),
  };
};
