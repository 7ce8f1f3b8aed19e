/** One JSON-RPC call straight to a node (no proxy, no retries): for setting a chain up, not for timing. */
export const nodeRequest = async <T>(url: string, method: string, params: ReadonlyArray<unknown> = []) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message?: string } };
  if (body.error !== undefined) throw new Error(`${method}: ${body.error.message ?? "error"}`);
  return body.result as T;
};

export const hex = (n: number) => `0x${n.toString(16)}`;
