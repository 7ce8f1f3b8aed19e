import { type Address, zeroAddress } from "viem";
import { type ChainClient, send } from "../ChainClient.js";
import { roleAddress } from "../devAccounts.js";
import { cometAbi } from "./comet/cometAbis.js";
import { vTokenAbi } from "./ctoken/ctokenAbis.js";
import type { SeededLending } from "./SeededLending.js";

/** Gas per accrual: automine is off, so nothing estimates it (a cToken accrual takes about 60k). */
const ACCRUE_GAS = 300_000n;

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
  await client.rpc("evm_setAutomine", [false]);
  try {
    for (const address of cTokens)
      await send(client, {
        from,
        address,
        abi: vTokenAbi,
        functionName: "accrueInterest",
        args: [],
        gas: ACCRUE_GAS,
      });
    for (const address of comets)
      await send(client, {
        from,
        address,
        abi: cometAbi,
        functionName: "accrueAccount",
        args: [zeroAddress],
        gas: ACCRUE_GAS,
      });
    await client.rpc("evm_mine", [{ timestamp, blocks: 1 }]);
  } finally {
    await client.rpc("evm_setAutomine", [true]);
  }
  const receipts = (await client.rpc("eth_getBlockReceipts", ["latest"])) as { status: string }[];
  if (receipts.length !== cTokens.length + comets.length || receipts.some((r) => r.status !== "0x1"))
    throw new Error(`lending interest accrual failed on chain ${client.chainId}`);
};
