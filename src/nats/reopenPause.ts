/** The first pause before a watch that ended on its own is opened again, ms. */
export const REOPEN_FIRST_MS = 200;
/** The longest such pause, ms; a watch that lived this long starts the count again. */
export const REOPEN_MAX_MS = 10_000;

/**
 * After a watch ended on its own, having lived `livedMs`, with `endsInARow` such ends before it:
 * the new count and the pause before the next watch. The pause doubles from REOPEN_FIRST_MS at each
 * end in a row, up to REOPEN_MAX_MS, so a server that ends every watch at once (each a consumer
 * made and the bucket replayed) is not asked in a loop; a watch that lived REOPEN_MAX_MS or more
 * counts as the first end again.
 */
export const reopenAfterEnd = (endsInARow: number, livedMs: number) => {
  const ends = livedMs >= REOPEN_MAX_MS ? 1 : endsInARow + 1;
  return { endsInARow: ends, pauseMs: Math.min(REOPEN_FIRST_MS * 2 ** (ends - 1), REOPEN_MAX_MS) };
};
