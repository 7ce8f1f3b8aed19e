import { toEventSelector } from "viem";
import { prng } from "../../src/lib/prng.js";
import type { ChainProfile } from "./chainProfiles.js";

/**
 * Blocks of a synthetic chain with a real chain's content, made from a seed so any block (of any
 * branch) can be made again on demand and none needs storing: ERC-20 transfers, approvals, swaps on
 * V2 pairs, V3 pools and the V4 pool manager with their real event signatures and log shapes, NFT
 * transfers, contract calls carrying calldata, and plain native transfers, in a mix that gives
 * about 1.5 logs a transaction (mainnet: 200 transactions, about 300 logs a block).
 */

const TOPIC = {
  transfer: toEventSelector("Transfer(address,address,uint256)"),
  approval: toEventSelector("Approval(address,address,uint256)"),
  sync: toEventSelector("Sync(uint112,uint112)"),
  v2Swap: toEventSelector("Swap(address,uint256,uint256,uint256,uint256,address)"),
  v3Swap: toEventSelector("Swap(address,address,int256,int256,uint160,uint128,int24)"),
  v4Swap: toEventSelector("Swap(bytes32,address,int128,int128,uint160,uint128,int24,uint24)"),
};

const hexOf = (random: () => number, bytes: number): string => {
  let out = "";
  for (let i = 0; i < bytes; i += 4)
    out += Math.floor(random() * 4294967296)
      .toString(16)
      .padStart(8, "0");
  return out.slice(0, bytes * 2);
};

/** The fixed cast of a synthetic chain: wallets, tokens, pools, NFT collections, contracts. */
const cast = (() => {
  const random = prng(0xc0ffee);
  const addresses = (n: number) => Array.from({ length: n }, () => `0x${hexOf(random, 20)}`);
  return {
    wallets: addresses(50_000),
    tokens: addresses(2_000),
    v2Pairs: addresses(300),
    v3Pools: addresses(300),
    v4PoolManager: `0x${hexOf(random, 20)}`,
    v4PoolIds: Array.from({ length: 300 }, () => `0x${hexOf(random, 32)}`),
    nfts: addresses(50),
    routers: addresses(10),
    contracts: addresses(500),
  };
})();

/** The cast's ERC-20 tokens by address: their index in the cast, which names them. */
const tokenIndex = new Map(cast.tokens.map((token, i) => [token, i]));

/** A cast token's name, symbol and decimals, as its contract answers them; undefined for any other address. */
export const castTokenMetadata = (address: string) => {
  const i = tokenIndex.get(address.toLowerCase());
  return i === undefined ? undefined : { name: `Synthetic ${i}`, symbol: `SYN${i}`, decimals: 18 };
};

/** The first `n` wallets of the cast (of 50,000): addresses a benchmark can watch. */
export const castWallets = (n: number): ReadonlyArray<string> => cast.wallets.slice(0, n);

const word = (hex: string) => hex.padStart(64, "0");
const topicOf = (address: string) => `0x${word(address.slice(2))}`;

interface Log {
  readonly address: string;
  readonly topics: ReadonlyArray<string>;
  readonly data: string;
}

interface Tx {
  readonly from: string;
  readonly to: string | null;
  readonly value: string;
  readonly input: string;
  readonly logs: ReadonlyArray<Log>;
  /** Native value an inner call moves (a router's payout), shown in traces. */
  readonly innerValue?: { readonly to: string; readonly value: string };
}

/** One transaction of the mix, with its logs. */
const makeTx = (random: () => number): Tx => {
  const pick = <T>(list: ReadonlyArray<T>) => list[Math.floor(random() * list.length)]!;
  const amount = () => `0x${word(hexOf(random, 12))}`.slice(2);
  const from = pick(cast.wallets);
  const other = pick(cast.wallets);
  const kind = random();
  if (kind < 0.4) {
    const token = pick(cast.tokens);
    const value = amount();
    return {
      from,
      to: token,
      value: "0x0",
      input: `0xa9059cbb${word(other.slice(2))}${value}`,
      logs: [{ address: token, topics: [TOPIC.transfer, topicOf(from), topicOf(other)], data: `0x${value}` }],
    };
  }
  if (kind < 0.5) {
    const token = pick(cast.tokens);
    const spender = pick(cast.routers);
    return {
      from,
      to: token,
      value: "0x0",
      input: `0x095ea7b3${word(spender.slice(2))}${"f".repeat(64)}`,
      logs: [
        {
          address: token,
          topics: [TOPIC.approval, topicOf(from), topicOf(spender)],
          data: `0x${"f".repeat(64)}`,
        },
      ],
    };
  }
  const router = pick(cast.routers);
  const calldata = (bytes: number) => `0x${hexOf(random, 4)}${hexOf(random, bytes)}`;
  const tokenIn = pick(cast.tokens);
  const tokenOut = pick(cast.tokens);
  const transfers = (pool: string): Array<Log> => [
    { address: tokenIn, topics: [TOPIC.transfer, topicOf(from), topicOf(pool)], data: `0x${amount()}` },
    { address: tokenOut, topics: [TOPIC.transfer, topicOf(pool), topicOf(from)], data: `0x${amount()}` },
  ];
  if (kind < 0.6) {
    const pair = pick(cast.v2Pairs);
    return {
      from,
      to: router,
      value: "0x0",
      input: calldata(320),
      logs: [
        ...transfers(pair),
        { address: pair, topics: [TOPIC.sync], data: `0x${amount()}${amount()}` },
        {
          address: pair,
          topics: [TOPIC.v2Swap, topicOf(router), topicOf(from)],
          data: `0x${amount()}${word("")}${word("")}${amount()}`,
        },
      ],
    };
  }
  if (kind < 0.72) {
    const pool = pick(cast.v3Pools);
    return {
      from,
      to: router,
      value: "0x0",
      input: calldata(420),
      logs: [
        ...transfers(pool),
        {
          address: pool,
          topics: [TOPIC.v3Swap, topicOf(router), topicOf(from)],
          data: `0x${amount()}${"f".repeat(40)}${amount().slice(40)}${amount()}${amount()}${word("1f4")}`,
        },
      ],
    };
  }
  if (kind < 0.77) {
    const id = pick(cast.v4PoolIds);
    return {
      from,
      to: router,
      value: `0x${hexOf(random, 7)}`,
      input: calldata(600),
      logs: [
        ...transfers(cast.v4PoolManager),
        {
          address: cast.v4PoolManager,
          topics: [TOPIC.v4Swap, id, topicOf(router)],
          data: `0x${amount()}${amount()}${amount()}${amount()}${word("3c")}${word("bb8")}`,
        },
      ],
      innerValue: { to: from, value: `0x${hexOf(random, 6)}` },
    };
  }
  if (kind < 0.82) {
    const collection = pick(cast.nfts);
    const id = word(hexOf(random, 3));
    return {
      from,
      to: collection,
      value: "0x0",
      input: `0x23b872dd${word(from.slice(2))}${word(other.slice(2))}${id}`,
      logs: [
        {
          address: collection,
          topics: [TOPIC.transfer, topicOf(from), topicOf(other), `0x${id}`],
          data: "0x",
        },
      ],
    };
  }
  if (kind < 0.95)
    return {
      from,
      to: pick(cast.contracts),
      value: "0x0",
      input: calldata(100 + Math.floor(random() * 1_900)),
      logs: [],
    };
  return { from, to: other, value: `0x${hexOf(random, 8)}`, input: "0x", logs: [] };
};

/** One block of a branch, as the JSON-RPC answers about it hold it, stringified once. */
export interface SyntheticBlock {
  readonly number: number;
  readonly hash: string;
  /** `eth_getBlockByNumber` with transactions, and without. */
  readonly full: string;
  readonly header: string;
  /** `eth_getBlockReceipts`. */
  readonly receipts: string;
  /** `debug_traceBlockByHash` with the callTracer. */
  readonly traces: string;
  /** Every log, as `eth_getLogs` gives it. */
  readonly logs: ReadonlyArray<{
    readonly address: string;
    readonly topics: ReadonlyArray<string>;
    readonly json: string;
  }>;
  readonly txCount: number;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** The hash of block `number` on `branch`: deterministic, so a parent's hash is known without making it. */
export const blockHashOf = (number: number, branch: number): string => {
  const random = prng(number * 7919 + branch * 104_729 + 1);
  return `0x${hexOf(random, 32)}`;
};

/** Block `number` of `branch`, whose parent is `parentBranch`'s block at `number - 1`. */
export const makeBlock = (
  profile: ChainProfile,
  number: number,
  branch: number,
  parentBranch: number,
  timestamp: number,
): SyntheticBlock => {
  const random = prng(number * 2_654_435_761 + branch);
  const hash = blockHashOf(number, branch);
  const txs = Array.from({ length: profile.txPerBlock }, () => makeTx(random));
  const txHashes = txs.map(() => `0x${hexOf(random, 32)}`);
  const blockNumber = hex(number);
  let logIndex = 0;
  const logs: Array<{ address: string; topics: ReadonlyArray<string>; json: string }> = [];
  const receipts = txs.map((tx, i) => {
    const txLogs = tx.logs.map((log) => {
      const rpcLog = {
        address: log.address,
        topics: log.topics,
        data: log.data,
        blockNumber,
        blockHash: hash,
        transactionHash: txHashes[i],
        transactionIndex: hex(i),
        logIndex: hex(logIndex++),
        removed: false,
      };
      logs.push({ address: log.address, topics: log.topics, json: JSON.stringify(rpcLog) });
      return rpcLog;
    });
    return {
      transactionHash: txHashes[i],
      transactionIndex: hex(i),
      blockHash: hash,
      blockNumber,
      from: tx.from,
      to: tx.to,
      status: "0x1",
      gasUsed: hex(21_000 + tx.input.length * 8 + tx.logs.length * 30_000),
      cumulativeGasUsed: hex((i + 1) * 120_000),
      effectiveGasPrice: "0x3b9aca00",
      contractAddress: null,
      logs: txLogs,
      logsBloom: `0x${"0".repeat(512)}`,
      type: "0x2",
    };
  });
  const transactions = txs.map((tx, i) => ({
    hash: txHashes[i],
    transactionIndex: hex(i),
    blockHash: hash,
    blockNumber,
    from: tx.from,
    to: tx.to,
    value: tx.value,
    input: tx.input,
    nonce: hex(Math.floor(random() * 5_000)),
    gas: "0x7a120",
    maxFeePerGas: "0x77359400",
    maxPriorityFeePerGas: "0x3b9aca00",
    type: "0x2",
    chainId: "0x1",
    v: "0x1",
    r: `0x${hexOf(random, 32)}`,
    s: `0x${hexOf(random, 32)}`,
  }));
  const header = {
    number: blockNumber,
    hash,
    parentHash: blockHashOf(number - 1, parentBranch),
    timestamp: hex(timestamp),
    // Not a real bloom: all ones where the block has logs, so a reader that checks "no logs but a
    // bloom" behaves as on a real node.
    logsBloom: `0x${(logs.length > 0 ? "f" : "0").repeat(512)}`,
    miner: cast.routers[0],
    gasLimit: "0x1c9c380",
    gasUsed: hex(receipts.length * 120_000),
    baseFeePerGas: "0x3b9aca00",
  };
  const traces = txs.map((tx, i) => ({
    txHash: txHashes[i],
    result: {
      type: "CALL",
      from: tx.from,
      to: tx.to,
      value: tx.value,
      calls:
        tx.innerValue === undefined
          ? []
          : [{ type: "CALL", from: tx.to, to: tx.innerValue.to, value: tx.innerValue.value }],
    },
  }));
  return {
    number,
    hash,
    full: JSON.stringify({ ...header, transactions }),
    header: JSON.stringify({ ...header, transactions: txHashes }),
    receipts: JSON.stringify(receipts),
    traces: JSON.stringify(traces),
    logs,
    txCount: txs.length,
  };
};
