/** Pure text helpers shared by the screens: every cell the TUI prints goes through these. */

/** `text` cut to `width` characters, with an ellipsis when cut. */
export const fit = (text: string, width: number): string =>
  width <= 0 ? "" : text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;

/** A count in at most 6 characters: 999999, 1.2M, 34.5k. */
export const compact = (n: number): string => {
  const rounded = Math.round(n * 10) / 10;
  if (Math.abs(rounded) < 1e5) return Number.isInteger(rounded) ? String(rounded) : rounded.toFixed(1);
  if (Math.abs(n) < 1e6) return `${(n / 1e3).toFixed(1)}k`;
  if (Math.abs(n) < 1e9) return `${(n / 1e6).toFixed(1)}M`;
  return `${(n / 1e9).toFixed(1)}G`;
};

/** `HH:MM:SS` UTC of a time. */
export const clock = (at: Date): string => at.toISOString().slice(11, 19);

/** A short duration: `4s`, `12m`, `3h`, `2d`. */
export const duration = (ms: number): string => {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7_200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3_600)}h`;
  return `${Math.round(s / 86_400)}d`;
};

/** How long ago an ISO time was; `-` for unknown times. */
export const age = (iso: string | null | undefined, now = Date.now()): string => {
  const ms = iso == null ? Number.NaN : now - Date.parse(iso);
  return Number.isNaN(ms) ? "-" : duration(ms);
};

/** The 8 block heights a sparkline draws with, lowest first. */
const BLOCKS = "▁▂▃▄▅▆▇█";

/** One character per value, scaled to the largest; zero is a blank-looking `·`. */
export const sparkline = (values: ReadonlyArray<number>): string => {
  const max = Math.max(0, ...values);
  return values
    .map((v) => (v <= 0 || max === 0 ? "·" : BLOCKS[Math.min(7, Math.floor((v / max) * 7.999))]))
    .join("");
};

/** A message from anything thrown. */
export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));
