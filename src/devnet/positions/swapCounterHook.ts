import { type Address, encodeDeployData } from "viem";
import { swapCounterHookAbi } from "../abis.js";
import { type ChainClient, deploy } from "../ChainClient.js";
import type { CompiledContracts } from "../compileContracts.js";

/**
 * Where the devnet's V4 hook lives. The PoolManager reads a hook's permissions from the low 14 bits of its
 * address and rejects a pool whose hook address claims other flags than it implements: here exactly
 * AFTER_SWAP_FLAG (1 << 6 = 0x40), the only callback SwapCounterHook has.
 */
export const SWAP_COUNTER_HOOK_ADDRESS: Address = "0x4444000000000000000000000000000000000040";

/**
 * Deploys `SwapCounterHook` (src/devnet/contracts) for `poolManager`, then copies its runtime code, with the
 * pool manager embedded as an immutable, to {@link SWAP_COUNTER_HOOK_ADDRESS} with `anvil_setCode`, as
 * Uniswap's own tests place hooks (`deployCodeTo`). The counters start at zero there.
 */
export const placeSwapCounterHook = async (
  client: ChainClient,
  compiled: CompiledContracts,
  deployer: Address,
  poolManager: Address,
): Promise<Address> => {
  const contract = compiled.SwapCounterHook;
  if (contract === undefined) throw new Error("contract SwapCounterHook missing from the solc build");
  const template = await deploy(
    client,
    deployer,
    encodeDeployData({ abi: swapCounterHookAbi, bytecode: contract.bytecode, args: [poolManager] }),
  );
  const code = await client.publicClient.getCode({ address: template });
  if (code === undefined) throw new Error(`no code at the SwapCounterHook template ${template}`);
  await client.rpc("anvil_setCode", [SWAP_COUNTER_HOOK_ADDRESS, code]);
  return SWAP_COUNTER_HOOK_ADDRESS;
};
