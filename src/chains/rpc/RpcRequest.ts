/** One JSON-RPC call: a method and its positional parameters. */
export interface RpcRequest {
  readonly method: string;
  readonly params: ReadonlyArray<unknown>;
}
