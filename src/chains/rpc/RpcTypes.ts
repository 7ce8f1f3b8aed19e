/** JSON-RPC shapes as nodes return them (hex quantities), only the fields ingestion reads. */
export interface RpcTransaction {
  readonly hash: string;
  readonly transactionIndex: string;
  readonly from: string;
  readonly to: string | null;
  readonly value: string;
  readonly input: string;
  readonly nonce: string;
  readonly type?: string;
}

export interface RpcLog {
  readonly transactionHash: string;
  readonly transactionIndex: string;
  readonly logIndex: string;
  readonly blockNumber: string;
  readonly blockHash: string;
  readonly address: string;
  readonly topics: ReadonlyArray<string>;
  readonly data: string;
  readonly removed?: boolean;
}

export interface RpcReceipt {
  readonly transactionHash: string;
  readonly status: string;
  readonly gasUsed: string;
  readonly effectiveGasPrice?: string;
  readonly contractAddress: string | null;
  readonly logs: ReadonlyArray<RpcLog>;
}

export interface RpcBlock<T = RpcTransaction | string> {
  readonly number: string;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: string;
  /** The block's log bloom: all zeros when it has no logs. */
  readonly logsBloom?: string;
  readonly transactions: ReadonlyArray<T>;
}

/** A callTracer frame (debug_traceBlockByHash). */
export interface CallFrame {
  readonly type: string;
  readonly from: string;
  readonly to?: string;
  readonly value?: string;
  readonly error?: string;
  readonly calls?: ReadonlyArray<CallFrame>;
}

export const hexToNumber = (hex: string): number => Number.parseInt(hex, 16);
export const hexToDecimal = (hex: string | undefined): string =>
  hex === undefined ? "0" : BigInt(hex).toString();
