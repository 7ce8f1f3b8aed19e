/** Raw JSON-RPC against a node (anvil), bypassing the service and any proxy. */
export const nodeCall = async <T>(
  url: string,
  method: string,
  params: ReadonlyArray<unknown> = [],
): Promise<T> => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
};

/** Sends `wei` from an unlocked dev account on anvil (automine: mined at once); the transaction hash. */
export const sendNative = (url: string, from: string, to: string, wei: bigint) =>
  nodeCall<string>(url, "eth_sendTransaction", [{ from, to, value: `0x${wei.toString(16)}` }]);

export const nativeBalance = async (url: string, address: string) =>
  BigInt(await nodeCall<string>(url, "eth_getBalance", [address, "latest"]));
