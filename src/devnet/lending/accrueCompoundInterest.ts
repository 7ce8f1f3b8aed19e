import { type Address, zeroAddress } from "viem";
import type { ChainClient } from "../ChainClient.js";
import { roleAddress } from "../devAccounts.js";
import { cometAbi } from "./comet/cometAbis.js";
import { vTokenAbi } from "./ctoken/ctokenAbis.js";
import type { SeededLending } from "./SeededLending.js";
import { openTxBatch } from "./txBatch.js";

/**
 * Mines one block at `timestamp` in which every cToken of `lending` runs `accrueInterest` and every Comet
 * accrues its indexes. cToken interest grows per block and is only written when something touches the
 * market, so without this the stored figures (`exchangeRateStored`, `borrowBalanceStored`) would still be
 * those of the seeding, before the history. Comet's balances include interest up to the second anyway;
 * this writes its indexes (`totalsBasic`) too. One block, so the history's states stay in the dump.
 */
export const accrueCompoundInterest = async (
  client: ChainClient,
  lending: SeededLending,
  timestamp: number,
): Promise<void> => {
  const cTokens = lending.markets
    .filter((m) => m.kind === "ctoken")
    .flatMap((m) => m.assets.flatMap((a) => (a.supply_token === null ? [] : [a.supply_token as Address])));
  const comets = lending.markets.filter((m) => m.kind === "comet").map((m) => m.address as Address);
  if (cTokens.length + comets.length === 0) return;
  const from = roleAddress("deployer");
  const batch = await openTxBatch(client);
  for (const address of cTokens)
    await batch.send({ from, address, abi: vTokenAbi, functionName: "accrueInterest", args: [] });
  for (const address of comets)
    await batch.send({ from, address, abi: cometAbi, functionName: "accrueAccount", args: [zeroAddress] });
  await batch.mine(timestamp);
};
