/** A table column: its header, alignment, and whether it gives up width first when space is short. */
export interface Column {
  readonly header: string;
  readonly align?: "left" | "right";
  /** Shrinks (down to `min`) when the row is wider than the terminal. */
  readonly shrink?: boolean;
  readonly min?: number;
}

const GAP = 1;

/**
 * Column widths that fit `width`: each column as wide as its widest cell, then
 * the shrinkable ones cut evenly, then the rightmost cut, so a table never
 * wraps, whatever the terminal size.
 */
export const columnWidths = (
  columns: ReadonlyArray<Column>,
  rows: ReadonlyArray<ReadonlyArray<string>>,
  width: number,
): ReadonlyArray<number> => {
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => (r[i] ?? "").length)));
  const total = () => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  for (let over = total() - width; over > 0; over = total() - width) {
    const shrinkable = widths.flatMap((w, i) =>
      columns[i]!.shrink && w > (columns[i]!.min ?? 4) ? [i] : [],
    );
    if (shrinkable.length === 0) break;
    const widest = shrinkable.reduce((a, b) => (widths[b]! > widths[a]! ? b : a));
    widths[widest] = widths[widest]! - 1;
  }
  for (let i = widths.length - 1, over = total() - width; over > 0 && i >= 0; i--, over = total() - width) {
    widths[i] = Math.max(0, widths[i]! - over);
  }
  return widths;
};

/** One table line: cells cut or padded to their widths. */
export const tableLine = (
  columns: ReadonlyArray<Column>,
  widths: ReadonlyArray<number>,
  cells: ReadonlyArray<string>,
): string =>
  widths
    .flatMap((w, i) => {
      if (w === 0) return [];
      const cell = cells[i] ?? "";
      const cut = cell.length <= w ? cell : `${cell.slice(0, Math.max(0, w - 1))}…`;
      return [columns[i]!.align === "right" ? cut.padStart(w) : cut.padEnd(w)];
    })
    .join(" ".repeat(GAP));

/** The first row of a window of `size` rows that keeps `cursor` visible, moving as little as possible. */
export const windowStart = (start: number, cursor: number, size: number, total: number): number => {
  const moved = cursor < start ? cursor : cursor >= start + size ? cursor - size + 1 : start;
  return Math.max(0, Math.min(moved, Math.max(0, total - size)));
};
