import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeFunctionData, encodeFunctionResult, parseAbi, toFunctionSelector } from "viem";
import type { ChainProfile } from "./chainProfiles.js";
import { castTokenMetadata, makeBlock, type SyntheticBlock } from "./syntheticChain.js";

/**
 * A JSON-RPC node serving a synthetic chain (syntheticChain.ts) at a profile's block time, for load
 * runs and tests: the methods ingest, the indexer and the node probe use (`eth_chainId`,
 * `eth_blockNumber`, `eth_getBlockByNumber`, `eth_getBlockByHash`, `eth_getBlockReceipts`,
 * `eth_getTransactionReceipt`, `eth_getLogs`, `debug_traceBlockByHash` where the profile has traces,
 * `eth_call` of Multicall3 `aggregate3` (the cast's tokens answer their metadata), `eth_getBalance`), single or batched; anything else is
 * "method not found", as on a real node. Reorgs are stateless: with `reorgEvery` R, blocks R*k-1 and
 * R*k are replaced by another branch once the head passes R*k, so a reader that took them at the
 * head sees them reorganised a block later. Each block's answers are made once and kept as JSON text.
 */

const MULTICALL3 = "0xca11bde05977b3631167028862be2a173976ca11";
const TOKEN_ABI = parseAbi([
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
]);
const TOKEN_FUNCTIONS = new Map(
  (["name", "symbol", "decimals"] as const).map((name) => [toFunctionSelector(`${name}()`), name]),
);

/** What a cast token answers to an ERC-20 metadata call, or undefined (not a token, not such a call). */
const tokenAnswer = (target: string, callData: string): `0x${string}` | undefined => {
  const metadata = castTokenMetadata(target);
  const functionName = TOKEN_FUNCTIONS.get(callData.slice(0, 10) as `0x${string}`);
  if (metadata === undefined || functionName === undefined) return undefined;
  return encodeFunctionResult({ abi: TOKEN_ABI, functionName, result: metadata[functionName] } as never);
};
const AGGREGATE3 = parseAbi([
  "struct Call3 { address target; bool allowFailure; bytes callData; }",
  "struct Result { bool success; bytes returnData; }",
  "function aggregate3(Call3[] calls) payable returns (Result[] returnData)",
]);
/** Blocks whose answers are kept by default (about 340 MB at mainnet size, 100 MB at Base size). */
const KEPT_BLOCKS = 512;
/** The widest `eth_getLogs` range answered, in blocks (as reth's default). */
const MAX_LOGS_RANGE = 10_000;
const REORG_DEPTH = 2;

export interface ReplayNodeOptions {
  readonly profile: ChainProfile;
  readonly chainId: number;
  /** The number of the first block the node has. */
  readonly firstBlock: number;
  /** Blocks made before the node starts (a backlog); a firehose has exactly these. */
  readonly backlog: number;
  /** The clock (ms); tests pass their own. */
  readonly now?: () => number;
  /** How many blocks' answers are kept once made (KEPT_BLOCKS): a firehose keeps its whole backlog, made before it is read. */
  readonly keep?: number;
}

export interface ReplayNode {
  readonly url: string;
  /** The head the node shows now. */
  readonly head: () => number;
  /** Requests and batch elements answered, by method, and response bytes. */
  readonly stats: () => {
    readonly requests: number;
    readonly elements: Readonly<Record<string, number>>;
    readonly bytes: number;
  };
  /** The canonical block `number` as the node now shows it. */
  readonly block: (number: number) => SyntheticBlock;
  /**
   * Makes the next `blocks` blocks and then shows them all at once (a firehose's head moves only
   * this way): a reader that was at the head finds them as a backlog.
   */
  readonly release: (blocks: number) => void;
  /** Stops the chain where it is: no block, and no reorg, after this one (so a reader can settle on it). */
  readonly freeze: () => void;
  readonly stop: () => Promise<void>;
}

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const hex = (n: number) => `0x${n.toString(16)}`;
const fromHex = (value: unknown): number =>
  typeof value === "string" ? Number.parseInt(value, 16) : Number.NaN;

export const startReplayNode = async (options: ReplayNodeOptions): Promise<ReplayNode> => {
  const { profile, firstBlock } = options;
  const now = options.now ?? Date.now;
  const startedAt = now();
  const genesisSeconds =
    Math.floor(startedAt / 1000) - Math.ceil((options.backlog * profile.blockTimeMs) / 1000);
  const lastBacklog = firstBlock + options.backlog - 1;
  let released = 0;
  let frozen: number | undefined;
  const head = () =>
    frozen ??
    (profile.blockTimeMs === 0
      ? lastBacklog + released
      : lastBacklog + Math.floor((now() - startedAt) / profile.blockTimeMs));
  const branchOf = (number: number, at = head()): number => {
    if (profile.reorgEvery === 0) return 0;
    const top = Math.ceil(number / profile.reorgEvery) * profile.reorgEvery;
    return number > top - REORG_DEPTH && at > top ? 1 : 0;
  };
  const kept = new Map<string, SyntheticBlock>();
  const byHash = new Map<string, { readonly number: number; readonly branch: number }>();
  const blockOf = (number: number, branch: number): SyntheticBlock => {
    const key = `${number}:${branch}`;
    let block = kept.get(key);
    if (block === undefined) {
      const at = head();
      const seconds = genesisSeconds + Math.floor(((number - firstBlock) * profile.blockTimeMs) / 1000);
      block = makeBlock(profile, number, branch, branchOf(number - 1, at), seconds);
      kept.set(key, block);
      byHash.set(block.hash, { number, branch });
      if (kept.size > (options.keep ?? KEPT_BLOCKS)) {
        const [oldest, dropped] = kept.entries().next().value!;
        kept.delete(oldest);
        byHash.delete(dropped.hash);
      }
    }
    return block;
  };
  const canonical = (number: number): SyntheticBlock | undefined =>
    number < firstBlock || number > head() ? undefined : blockOf(number, branchOf(number));
  /** The block `hash` names, if it is canonical now (an orphaned block is "not found", as on a node). */
  const byHashNow = (hash: unknown): SyntheticBlock | undefined => {
    const known = typeof hash === "string" ? byHash.get(hash.toLowerCase()) : undefined;
    if (known === undefined || known.number > head() || branchOf(known.number) !== known.branch)
      return undefined;
    return blockOf(known.number, known.branch);
  };
  const blockTag = (tag: unknown): number =>
    tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized" ? head() : fromHex(tag);

  const getLogs = (filter: {
    fromBlock?: string;
    toBlock?: string;
    address?: string | ReadonlyArray<string>;
    topics?: ReadonlyArray<string | ReadonlyArray<string> | null>;
    blockHash?: string;
  }): string => {
    const blocks: Array<SyntheticBlock> = [];
    if (filter.blockHash !== undefined) {
      const block = byHashNow(filter.blockHash);
      if (block === undefined) throw new RpcFailure(-32000, "unknown block");
      blocks.push(block);
    } else {
      const from = blockTag(filter.fromBlock ?? "latest");
      const to = Math.min(blockTag(filter.toBlock ?? "latest"), head());
      if (to - from + 1 > MAX_LOGS_RANGE)
        throw new RpcFailure(-32602, `query exceeds max block range ${MAX_LOGS_RANGE}`);
      for (let n = Math.max(from, firstBlock); n <= to; n++) blocks.push(canonical(n)!);
    }
    const addresses =
      filter.address === undefined
        ? undefined
        : new Set(
            (Array.isArray(filter.address) ? filter.address : [filter.address]).map((a: string) =>
              a.toLowerCase(),
            ),
          );
    const matches = (log: SyntheticBlock["logs"][number]) =>
      (addresses === undefined || addresses.has(log.address)) &&
      (filter.topics ?? []).every(
        (wanted, i) =>
          wanted === null ||
          (Array.isArray(wanted) ? wanted.includes(log.topics[i]) : wanted === log.topics[i]),
      );
    return `[${blocks.flatMap((block) => block.logs.filter(matches).map((log) => log.json)).join(",")}]`;
  };

  const aggregate3 = (data: unknown): string => {
    const { args } = decodeFunctionData({ abi: AGGREGATE3, data: data as `0x${string}` });
    // The cast's tokens answer name(), symbol() and decimals() as an ERC-20 does; every other call
    // fails, as a contract without that function would.
    return JSON.stringify(
      encodeFunctionResult({
        abi: AGGREGATE3,
        functionName: "aggregate3",
        result: args[0].map((call) => {
          const answer = tokenAnswer(call.target, call.callData);
          return answer === undefined
            ? { success: false, returnData: "0x" as const }
            : { success: true, returnData: answer };
        }),
      }),
    );
  };

  /** The JSON text of one call's result. */
  const answer = (method: string, params: ReadonlyArray<unknown>): string => {
    switch (method) {
      case "eth_chainId":
        return JSON.stringify(hex(options.chainId));
      case "eth_blockNumber":
        return JSON.stringify(hex(head()));
      case "eth_getBlockByNumber": {
        const block = canonical(blockTag(params[0]));
        return block === undefined ? "null" : params[1] === true ? block.full : block.header;
      }
      case "eth_getBlockByHash": {
        const block = byHashNow(params[0]);
        return block === undefined ? "null" : params[1] === true ? block.full : block.header;
      }
      case "eth_getBlockReceipts": {
        const ref = params[0];
        const block =
          typeof ref === "string" && ref.length === 66 ? byHashNow(ref) : canonical(blockTag(ref));
        return block === undefined ? "null" : block.receipts;
      }
      case "eth_getTransactionReceipt": {
        const hash = String(params[0]).toLowerCase();
        for (let n = head(); n >= Math.max(firstBlock, head() - 64); n--) {
          const receipts = JSON.parse(canonical(n)!.receipts) as ReadonlyArray<{ transactionHash: string }>;
          const receipt = receipts.find((r) => r.transactionHash === hash);
          if (receipt !== undefined) return JSON.stringify(receipt);
        }
        return "null";
      }
      case "debug_traceBlockByHash": {
        if (!profile.traces)
          throw new RpcFailure(-32601, "the method debug_traceBlockByHash does not exist/is not available");
        const block = byHashNow(params[0]);
        if (block === undefined) throw new RpcFailure(-32000, `block ${String(params[0])} not found`);
        return block.traces;
      }
      case "eth_getLogs":
        return getLogs((params[0] ?? {}) as Parameters<typeof getLogs>[0]);
      case "eth_call": {
        const call = (params[0] ?? {}) as { to?: string; data?: string; input?: string };
        const data = call.data ?? call.input ?? "0x";
        if (call.to?.toLowerCase() === MULTICALL3 && data.startsWith("0x82ad56cb")) return aggregate3(data);
        return JSON.stringify("0x");
      }
      case "eth_getBalance":
        return JSON.stringify("0x0");
      default:
        throw new RpcFailure(-32601, `the method ${method} does not exist/is not available`);
    }
  };

  let requests = 0;
  let bytes = 0;
  const elements: Record<string, number> = {};
  const respond = (request: { id?: unknown; method?: unknown; params?: unknown }): string => {
    const id = JSON.stringify(request.id ?? null);
    const method = typeof request.method === "string" ? request.method : "";
    elements[method] = (elements[method] ?? 0) + 1;
    try {
      return `{"jsonrpc":"2.0","id":${id},"result":${answer(method, Array.isArray(request.params) ? request.params : [])}}`;
    } catch (error) {
      const failure = error instanceof RpcFailure ? error : new RpcFailure(-32603, String(error));
      return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify({ code: failure.code, message: failure.message })}}`;
    }
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests++;
      let body: string;
      try {
        const parsed = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
        body = Array.isArray(parsed)
          ? `[${parsed.map(respond).join(",")}]`
          : respond(parsed as { id?: unknown });
      } catch {
        body = `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`;
      }
      bytes += body.length;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
  };
  const server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    head,
    stats: () => ({ requests, elements: { ...elements }, bytes }),
    block: (number) => {
      const block = canonical(number);
      if (block === undefined) throw new Error(`block ${number} is not on the node yet`);
      return block;
    },
    freeze: () => {
      frozen = head();
    },
    release: (blocks) => {
      const from = head() + 1;
      for (let n = from; n < from + blocks; n++) blockOf(n, branchOf(n, from + blocks - 1));
      released += blocks;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
