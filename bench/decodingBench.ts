import {
  type AbiEvent,
  decodeEventLog,
  encodeAbiParameters,
  encodeEventTopics,
  type Hex,
  parseAbiItem,
} from "viem";
import type { BlockLike } from "../src/decoding/BlockLike.js";
import { classifyBlock } from "../src/decoding/classifyBlock.js";
import { decodeLogs } from "../src/decoding/decodeLog.js";
import type { LogLike } from "../src/decoding/events/DecodedEvent.js";
import { median, spread } from "./lib/stats.js";

const LOGS = 100_000;
const LOGS_PER_TX = 4;
const TXS_PER_BLOCK = 50;
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 5);

const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

/** A mix close to a busy EVM chain: mostly ERC-20 transfers, AMM swaps, and a quarter unknown logs. */
const TEMPLATES: ReadonlyArray<
  readonly [declaration: string, args: Record<string, unknown>, weight: number]
> = [
  [
    "event Transfer(address indexed from, address indexed to, uint256 value)",
    { from: address(1), to: address(2), value: 10n ** 21n },
    40,
  ],
  [
    "event Approval(address indexed owner, address indexed spender, uint256 value)",
    { owner: address(1), spender: address(3), value: 2n ** 256n - 1n },
    5,
  ],
  [
    "event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
    { from: address(1), to: address(2), tokenId: 77n },
    5,
  ],
  ["event Sync(uint112 reserve0, uint112 reserve1)", { reserve0: 10n ** 24n, reserve1: 10n ** 20n }, 7],
  [
    "event Swap(address indexed sender, uint256 amount0In, uint256 amount1In, uint256 amount0Out, uint256 amount1Out, address indexed to)",
    {
      sender: address(3),
      amount0In: 10n ** 18n,
      amount1In: 0n,
      amount0Out: 0n,
      amount1Out: 5n * 10n ** 17n,
      to: address(1),
    },
    7,
  ],
  [
    "event Swap(address indexed sender, address indexed recipient, int256 amount0, int256 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick)",
    {
      sender: address(3),
      recipient: address(1),
      amount0: -(10n ** 18n),
      amount1: 10n ** 9n,
      sqrtPriceX96: 2n ** 96n,
      liquidity: 10n ** 20n,
      tick: -200000,
    },
    8,
  ],
  [
    "event Swap(bytes32 indexed id, address indexed sender, int128 amount0, int128 amount1, uint160 sqrtPriceX96, uint128 liquidity, int24 tick, uint24 fee)",
    {
      id: hash(9),
      sender: address(3),
      amount0: -(10n ** 18n),
      amount1: 10n ** 9n,
      sqrtPriceX96: 2n ** 96n,
      liquidity: 10n ** 20n,
      tick: 5,
      fee: 3000,
    },
    3,
  ],
  ["event Unknown(address indexed who, uint256 amount)", { who: address(4), amount: 1n }, 25],
];

const encode = (declaration: string, args: Record<string, unknown>) => {
  const event = parseAbiItem(declaration) as AbiEvent;
  const indexed = Object.fromEntries(
    event.inputs.filter((i) => i.indexed).map((i) => [i.name!, args[i.name!]]),
  );
  const inputs = event.inputs.filter((i) => !i.indexed);
  return {
    event,
    topics: encodeEventTopics({ abi: [event], args: indexed }) as Array<Hex>,
    data: encodeAbiParameters(
      inputs,
      inputs.map((i) => args[i.name!]),
    ),
  };
};

const encoded = TEMPLATES.flatMap(([declaration, args, weight]) =>
  Array.from({ length: weight }, () => encode(declaration, args)),
);

/** JSON round trip, as the logs arrive from NATS: fresh strings, nothing pre-hashed. */
const makeLogs = (): Array<LogLike> =>
  JSON.parse(
    JSON.stringify(
      Array.from({ length: LOGS }, (_, k) => {
        const tx = Math.floor(k / LOGS_PER_TX);
        const { topics, data } = encoded[k % encoded.length]!;
        return {
          address: address(0x1000 + (k % 97)),
          topics,
          data,
          log_index: k % (LOGS_PER_TX * TXS_PER_BLOCK),
          transaction_index: tx % TXS_PER_BLOCK,
          transaction_hash: hash(tx + 1),
        };
      }),
    ),
  );

const makeBlocks = (logs: ReadonlyArray<LogLike>): Array<BlockLike> => {
  const perBlock = LOGS_PER_TX * TXS_PER_BLOCK;
  return Array.from({ length: LOGS / perBlock }, (_, b) => {
    const blockLogs = logs.slice(b * perBlock, (b + 1) * perBlock);
    const transactions = Array.from({ length: TXS_PER_BLOCK }, (_, t) => ({
      hash: blockLogs[t * LOGS_PER_TX]!.transaction_hash,
      index: t,
      from: address(1),
      to: address(3),
      value: t % 3 === 0 ? "1000000000000000000" : "0",
      input: "0x38ed1739",
      success: t % 20 !== 0,
      contract_address: null,
    }));
    return {
      chain_id: 1,
      number: b,
      timestamp: 1_700_000_000 + b * 12,
      transactions,
      logs: blockLogs,
      internal_transfers: null,
    };
  });
};

/** viem's generic decoder over the same logs: the floor our topic-indexed decoder is compared with. */
const viemDecodeAll = (logs: ReadonlyArray<LogLike>) => {
  const abi = encoded
    .map((e) => e.event)
    .filter((e) => e.name !== "Unknown" && !(e.name === "Transfer" && e.inputs[2]?.indexed));
  let decoded = 0;
  for (const log of logs) {
    try {
      decodeEventLog({ abi, topics: log.topics as [Hex, ...Array<Hex>], data: log.data as Hex });
      decoded++;
    } catch {
      // Unknown and ERC-721 logs fail to decode against this ABI, which is the point of a floor.
    }
  }
  return decoded;
};

const rate = (work: () => unknown, items: number) => {
  const start = performance.now();
  work();
  return items / ((performance.now() - start) / 1000);
};

/**
 * Decoding throughput: `decodeLogs` over 100k JSON-fresh logs against viem's `decodeEventLog` over
 * the same logs (ratio = ours / viem), and `classifyBlock` throughput in logs and transactions per second.
 */
export const decodingBench = async () => {
  const ours: Array<number> = [];
  const viem: Array<number> = [];
  const classify: Array<number> = [];
  for (let r = 0; r < REPETITIONS + 1; r++) {
    const logs = makeLogs();
    const blocks = makeBlocks(logs);
    const a = rate(() => decodeLogs(logs), LOGS);
    const b = rate(() => viemDecodeAll(logs), LOGS);
    const c = rate(() => {
      for (const block of blocks) classifyBlock(block);
    }, LOGS);
    // The first round only warms the JIT.
    if (r === 0) continue;
    ours.push(a);
    viem.push(b);
    classify.push(c);
  }
  const k = (values: ReadonlyArray<number>) =>
    spread(
      values.map((v) => v / 1000),
      0,
    );
  return {
    name: "decoding",
    lines: [
      `decodeLogs:       ${k(ours)} k logs/s (${LOGS} logs, 25 % unknown)`,
      `viem decodeEventLog: ${k(viem)} k logs/s (floor)`,
      `ratio decodeLogs / viem: ${(median(ours) / median(viem)).toFixed(1)}`,
      `classifyBlock:    ${k(classify)} k logs/s (decode + classify, ${LOGS_PER_TX} logs per tx, ${TXS_PER_BLOCK} tx per block)`,
    ],
  };
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await decodingBench();
  process.stdout.write(`== ${result.name} ==\n${result.lines.join("\n")}\n`);
}
