import { numberToHex, parseEther } from "viem";
import type { DevnetChainSpec } from "../chainSpecs.js";
import { EVERY_TYPE_ROLE, roleAddress, type WalletRole } from "../devAccounts.js";
import { openTxBatch } from "../lending/txBatch.js";
import type { SeededVaults } from "../vaults/SeededVaults.js";
import type { EveryTypeOpened, EveryTypeStep, SeededProtocols } from "./EveryTypeStep.js";
import { EVERY_TYPE_STEPS } from "./everyTypeSteps.js";

/** Ether the holder starts with, for the gas of what it sends itself (lending, restaking). */
const HOLDER_ETHER = "10";

/** The chains where the every-type wallet is seeded: those with liquidity positions (ethereum, base, optimism). */
export const holdsEveryType = (spec: DevnetChainSpec): boolean => spec.liquidityPositions;

/** Everything the steps opened, joined. */
const join = (parts: readonly EveryTypeOpened[]): Required<EveryTypeOpened> => ({
  liquidity: parts.flatMap((p) => p.liquidity ?? []),
  lending: parts.flatMap((p) => p.lending ?? []),
  vaults: parts.flatMap((p) => p.vaults ?? []),
  restakeDeposits: parts.flatMap((p) => p.restakeDeposits ?? []),
});

/**
 * Gives `holder` one position of every type the chain's protocols offer (docs/devnet.md, "Every position
 * type"), by running each step: the mined ones one after the other, then the batched ones in one block.
 * Runs after the protocol seeds and before the history, so lending interest accrues on these positions
 * too. Nothing on chains without liquidity positions.
 */
export const seedEveryType = async (
  chain: SeededProtocols,
  holder: WalletRole = EVERY_TYPE_ROLE,
  steps: readonly EveryTypeStep[] = EVERY_TYPE_STEPS,
): Promise<Required<EveryTypeOpened>> => {
  if (!holdsEveryType(chain.spec)) return join([]);
  const { client } = chain;
  const address = roleAddress(holder);
  await client.rpc("anvil_impersonateAccount", [address]);
  await client.rpc("anvil_setBalance", [address, numberToHex(parseEther(HOLDER_ETHER))]);
  try {
    const opened: EveryTypeOpened[] = [];
    for (const step of steps) if (step.phase === "mined") opened.push(await step.open(chain, holder));
    const batch = await openTxBatch(client);
    for (const step of steps)
      if (step.phase === "batched") opened.push(await step.open(chain, holder, batch));
    await batch.mine();
    return join(opened);
  } finally {
    await client.rpc("anvil_stopImpersonatingAccount", [address]);
  }
};

/** The chain's vaults and restaking with the holder's vault shares and strategy deposits added. */
export const withEveryTypeHolder = (
  vaults: SeededVaults,
  opened: Required<EveryTypeOpened>,
  holder: WalletRole = EVERY_TYPE_ROLE,
): SeededVaults => ({
  vaults: vaults.vaults.map((vault) =>
    opened.vaults.includes(vault.address)
      ? { ...vault, holders: [...vault.holders, roleAddress(holder)] }
      : vault,
  ),
  restaking:
    vaults.restaking === null
      ? null
      : { ...vaults.restaking, deposits: [...vaults.restaking.deposits, ...opened.restakeDeposits] },
});
