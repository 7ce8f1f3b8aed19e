/**
 * Unix seconds as ISO 8601 with a `+00:00` offset and no fraction (`2025-02-20T13:52:29+00:00`), the
 * form the compatible API uses for `block_time`. Computed once per block.
 */
export const toBlockTime = (timestamp: number): string =>
  `${new Date(timestamp * 1000).toISOString().slice(0, 19)}+00:00`;
