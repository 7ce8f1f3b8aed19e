import {
  type Abi,
  type Address,
  type ContractFunctionArgs,
  type ContractFunctionName,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hash,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import { MULTICALL3_ADDRESS } from "./multicall3.js";

/** viem clients for one devnet chain; transactions are signed by anvil's unlocked dev accounts. */
export interface ChainClient {
  readonly chainId: number;
  readonly publicClient: PublicClient;
  readonly walletClient: WalletClient;
  /** Raw JSON-RPC call, for anvil_* and evm_* methods viem does not wrap. */
  readonly rpc: (method: string, params: readonly unknown[]) => Promise<unknown>;
}

/** Builds clients for the node at `rpcUrl`, with Multicall3 at its canonical address. */
export const chainClient = (chainId: number, name: string, rpcUrl: string): ChainClient => {
  const chain = defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
  });
  // Anvil mines on each transaction, so receipts exist as soon as the send returns: poll fast.
  const transport = http(rpcUrl, { batch: false, retryCount: 0 });
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 });
  const walletClient = createWalletClient({ chain, transport });
  return {
    chainId,
    publicClient,
    walletClient,
    rpc: (method, params) =>
      publicClient.request({ method: method as "eth_chainId", params: params as never }),
  };
};

/** A contract write sent from one of anvil's unlocked accounts. */
export interface WriteRequest<
  abi extends Abi,
  name extends ContractFunctionName<abi, "nonpayable" | "payable">,
> {
  readonly from: Address;
  readonly address: Address;
  readonly abi: abi;
  readonly functionName: name;
  readonly args: ContractFunctionArgs<abi, "nonpayable" | "payable", name>;
  readonly value?: bigint;
  /** Fixed gas limit; skips estimation, which is required when automine is off and state is pending. */
  readonly gas?: bigint;
}

/**
 * Sends a contract write and returns its hash. Without a fixed `gas` it waits until the transaction is mined
 * and fails if it reverted: anvil's automine returns before the block exists, and the next transaction's
 * gas estimate must see this one's effects. With `gas` (automine off) it returns once the node accepts it.
 */
export const send = async <abi extends Abi, name extends ContractFunctionName<abi, "nonpayable" | "payable">>(
  client: ChainClient,
  request: WriteRequest<abi, name>,
): Promise<Hash> => {
  const hash = await submit(client, request);
  if (request.gas === undefined) await receiptOf(client, hash);
  return hash;
};

/**
 * Estimates gas with a 30 % margin: anvil's own estimate for eth_sendTransaction can fall short on
 * position-manager mints (tick initialisation), which then revert out of gas.
 */
const submit = async <abi extends Abi, name extends ContractFunctionName<abi, "nonpayable" | "payable">>(
  client: ChainClient,
  request: WriteRequest<abi, name>,
): Promise<Hash> => {
  const call = {
    account: request.from,
    address: request.address,
    abi: request.abi as Abi,
    functionName: request.functionName as string,
    args: request.args as readonly unknown[],
    ...(request.value === undefined ? {} : { value: request.value }),
  };
  const gas = request.gas ?? ((await client.publicClient.estimateContractGas(call)) * 13n) / 10n;
  // `chain: null` skips viem's eth_chainId check before every send: the client only ever talks to its own
  // node, and the seed sends about a thousand transactions per chain.
  return client.walletClient.writeContract({ ...call, chain: null, gas });
};

/** Sends a write and returns its receipt, failing when the transaction reverted. */
export const execute = async <
  abi extends Abi,
  name extends ContractFunctionName<abi, "nonpayable" | "payable">,
>(
  client: ChainClient,
  request: WriteRequest<abi, name>,
): Promise<TransactionReceipt> => receiptOf(client, await submit(client, request));

/** The receipt of a mined transaction; throws when it reverted. */
export const receiptOf = async (client: ChainClient, hash: Hash): Promise<TransactionReceipt> => {
  // Automine: the receipt exists once the send returns; the loop only covers anvil's brief lag under load.
  let receipt = await client.publicClient.getTransactionReceipt({ hash }).catch(() => undefined);
  for (let attempt = 0; receipt === undefined && attempt < 200; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    receipt = await client.publicClient.getTransactionReceipt({ hash }).catch(() => undefined);
  }
  if (receipt === undefined) throw new Error(`transaction ${hash} was not mined on chain ${client.chainId}`);
  if (receipt.status !== "success")
    throw new Error(`transaction ${hash} reverted on chain ${client.chainId}`);
  return receipt;
};

/** Deploys creation code (constructor arguments already appended) and returns the new address. */
export const deploy = async (client: ChainClient, from: Address, data: Hex): Promise<Address> => {
  const hash = await client.walletClient.sendTransaction({
    account: from,
    chain: null,
    data,
  });
  const receipt = await receiptOf(client, hash);
  if (!receipt.contractAddress) throw new Error(`deployment ${hash} created no contract`);
  return receipt.contractAddress;
};
