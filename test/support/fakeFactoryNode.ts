import {
  decodeFunctionData,
  encodeAbiParameters,
  type Hex,
  parseAbi,
  toFunctionSelector,
  zeroAddress,
} from "viem";
import type { ChainRpc } from "../../src/chains/rpc/ChainRpc.js";
import { fakeChainRpc } from "./chainRpc.js";

/**
 * A node for unit tests of factory lookups: Multicall3's aggregate3 over a model of pool
 * factories (V2 `getPair`, V3 `getPool` and `feeAmountTickSpacing`, Algebra `poolByPair`), V4
 * StateViews (`getSlot0`) and tokens (`name`, `symbol`, `decimals`). It counts eth_calls and the
 * calls each carried, and can revert every call to a target or fail whole eth_calls.
 */

const multicall = parseAbi([
  "function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[])",
]);

const sel = (signature: string) => toFunctionSelector(signature);
const SELECTORS = {
  getPair: sel("getPair(address,address)"),
  getPool: sel("getPool(address,address,uint24)"),
  feeAmountTickSpacing: sel("feeAmountTickSpacing(uint24)"),
  poolByPair: sel("poolByPair(address,address)"),
  getSlot0: sel("getSlot0(bytes32)"),
  name: sel("name()"),
  symbol: sel("symbol()"),
  decimals: sel("decimals()"),
} as const;

const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);
const arg = (data: Hex, i: number) => `0x${data.slice(10 + i * 64, 10 + (i + 1) * 64)}`;
const addressArg = (data: Hex, i: number) => `0x${arg(data, i).slice(-40)}`;
const word = (value: bigint | string) =>
  encodeAbiParameters([{ type: "uint256" }], [typeof value === "bigint" ? value : BigInt(value)]);

export interface FakeFactoryNode {
  readonly rpc: ChainRpc;
  /** Calls carried by each eth_call sent, in order. */
  readonly ethCalls: Array<number>;
  readonly v2: (factory: string, a: string, b: string, pair: string) => void;
  readonly v3: (factory: string, a: string, b: string, fee: number, pool: string) => void;
  readonly v3Spacing: (factory: string, fee: number, spacing: number) => void;
  readonly algebra: (factory: string, a: string, b: string, pool: string) => void;
  readonly v4: (stateView: string, poolId: string) => void;
  readonly token: (address: string, symbol: string, decimals: number) => void;
  /** Every call to `target` reverts. */
  readonly revert: (target: string) => void;
  /** The next `n` eth_calls fail as a node error. */
  readonly failNext: (n: number) => void;
}

export const fakeFactoryNode = (chainId = 1): FakeFactoryNode => {
  const pairs = new Map<string, string>();
  const pools = new Map<string, string>();
  const spacings = new Map<string, number>();
  const algebraPools = new Map<string, string>();
  const initialised = new Set<string>();
  const tokens = new Map<string, { symbol: string; decimals: number }>();
  const reverting = new Set<string>();
  const ethCalls: Array<number> = [];
  let failing = 0;

  const answer = (target: string, data: Hex): { success: boolean; returnData: Hex } => {
    if (reverting.has(target)) return { success: false, returnData: "0x" };
    const selector = data.slice(0, 10);
    const ok = (returnData: Hex) => ({ success: true, returnData });
    switch (selector) {
      case SELECTORS.getPair:
        return ok(
          word(pairs.get(`${target}|${pairKey(addressArg(data, 0), addressArg(data, 1))}`) ?? zeroAddress),
        );
      case SELECTORS.getPool: {
        const fee = Number(BigInt(arg(data, 2)));
        const key = `${target}|${pairKey(addressArg(data, 0), addressArg(data, 1))}|${fee}`;
        return ok(word(pools.get(key) ?? zeroAddress));
      }
      case SELECTORS.feeAmountTickSpacing:
        return ok(word(BigInt(spacings.get(`${target}|${Number(BigInt(arg(data, 0)))}`) ?? 0)));
      case SELECTORS.poolByPair:
        return ok(
          word(
            algebraPools.get(`${target}|${pairKey(addressArg(data, 0), addressArg(data, 1))}`) ?? zeroAddress,
          ),
        );
      case SELECTORS.getSlot0: {
        const price = initialised.has(`${target}|${arg(data, 0)}`) ? 2n ** 96n : 0n;
        return ok(
          encodeAbiParameters(
            [{ type: "uint160" }, { type: "int24" }, { type: "uint24" }, { type: "uint24" }],
            [price, 0, 0, 3000],
          ),
        );
      }
      case SELECTORS.name:
      case SELECTORS.symbol:
      case SELECTORS.decimals: {
        const token = tokens.get(target);
        if (token === undefined) return { success: false, returnData: "0x" };
        return selector === SELECTORS.decimals
          ? ok(word(BigInt(token.decimals)))
          : ok(encodeAbiParameters([{ type: "string" }], [token.symbol]));
      }
      default:
        return { success: false, returnData: "0x" };
    }
  };

  const rpc = fakeChainRpc((requests) => {
    if (failing > 0) {
      failing -= requests.length;
      return {
        kind: "fault",
        fault: { reason: "Rejected", detail: "execution reverted: the test node refuses" },
      };
    }
    return {
      kind: "answers",
      answers: requests.map((request) => {
        if (request.method !== "eth_call") throw new Error(`unexpected ${request.method}`);
        const { data } = (request.params as Array<{ data: Hex }>)[0]!;
        const { args } = decodeFunctionData({ abi: multicall, data });
        const calls = args[0];
        ethCalls.push(calls.length);
        const results = calls.map((call) => answer(call.target.toLowerCase(), call.callData));
        return {
          ok: true as const,
          result: encodeAbiParameters(
            [{ type: "tuple[]", components: [{ type: "bool" }, { type: "bytes" }] }],
            [results.map((r) => [r.success, r.returnData] as const)],
          ),
        };
      }),
    };
  }, chainId);

  return {
    rpc,
    ethCalls,
    v2: (factory, a, b, pair) => pairs.set(`${factory}|${pairKey(a, b)}`, pair),
    v3: (factory, a, b, fee, pool) => pools.set(`${factory}|${pairKey(a, b)}|${fee}`, pool),
    v3Spacing: (factory, fee, spacing) => spacings.set(`${factory}|${fee}`, spacing),
    algebra: (factory, a, b, pool) => algebraPools.set(`${factory}|${pairKey(a, b)}`, pool),
    v4: (stateView, poolId) => initialised.add(`${stateView}|${poolId.toLowerCase()}`),
    token: (address, symbol, decimals) => tokens.set(address, { symbol, decimals }),
    revert: (target) => reverting.add(target),
    failNext: (n) => {
      failing = n;
    },
  };
};
