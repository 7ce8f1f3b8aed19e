import { Box, Text } from "ink";

type Properties = {
  readonly header: ReadonlyArray<string>;
  readonly rows: ReadonlyArray<ReadonlyArray<string>>;
  /** Rows shown at most; the rest are summarised, so long lists stay fast. */
  readonly maxRows?: number;
};

/** A plain table: columns padded to their widest cell, header in bold. */
export const Table = ({ header, rows, maxRows = 15 }: Properties) => {
  const shown = rows.slice(0, maxRows);
  const widths = header.map((h, i) => Math.max(h.length, ...shown.map((row) => (row[i] ?? "").length)));
  const line = (cells: ReadonlyArray<string>) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join("  ");
  return (
    <Box flexDirection="column">
      <Text bold>{line(header)}</Text>
      {shown.length === 0 ? <Text dimColor>(none)</Text> : null}
      {shown.map((row, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their position.
        <Text key={i}>{line(row)}</Text>
      ))}
      {rows.length > shown.length ? <Text dimColor>… and {rows.length - shown.length} more</Text> : null}
    </Box>
  );
};
