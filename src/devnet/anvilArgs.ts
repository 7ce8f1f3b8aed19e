/**
 * Flags every devnet node runs with. The code size limit admits Uniswap's NonfungiblePositionManager and
 * V4 PositionManager (over EIP-170's 24 KiB); the gas limit fits the paging-token block.
 */
export const DEVNET_ANVIL_ARGS: readonly string[] = [
  "--code-size-limit",
  "1048576",
  "--gas-limit",
  "500000000",
];

/**
 * Extra flags while seeding. `--preserve-historical-states` makes the dump written on exit carry the state
 * of each block anvil keeps in memory, so eth_call at past blocks works after `--load-state`; the dump
 * holds a full state copy per kept block, so `--prune-history` keeps just the history phase's blocks.
 */
export const seedAnvilArgs = (options: {
  genesisTimestamp: number;
  keptStates: number;
  dumpPath: string;
}): string[] => [
  ...DEVNET_ANVIL_ARGS,
  "--timestamp",
  String(options.genesisTimestamp),
  "--prune-history",
  String(options.keptStates),
  "--preserve-historical-states",
  "--dump-state",
  options.dumpPath,
];
