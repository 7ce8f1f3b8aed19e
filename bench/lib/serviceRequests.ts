/** One answer of the service as a client sees it: status, time, and which chains it says failed. */
export interface ServiceAnswer {
  readonly status: number;
  readonly ms: number;
  /** Chain ids named in the body's `errors.chain_errors`. */
  readonly failedChains: ReadonlyArray<number>;
}

/** GET `url` with the API key; the body is read whole (its time counts) and its chain errors picked out. */
export const getAnswer = async (url: string, key: string): Promise<ServiceAnswer> => {
  const started = performance.now();
  const response = await fetch(url, { headers: { "x-svc-api-key": key } });
  const text = await response.text();
  const ms = performance.now() - started;
  let failedChains: ReadonlyArray<number> = [];
  try {
    const body = JSON.parse(text) as { errors?: { chain_errors?: ReadonlyArray<{ chain_id: number }> } };
    failedChains = body.errors?.chain_errors?.map((e) => e.chain_id) ?? [];
  } catch {
    // Not JSON: an error page; its status says enough.
  }
  return { status: response.status, ms, failedChains };
};
