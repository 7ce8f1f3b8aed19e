import { Box, Text } from "ink";
import { type Column, columnWidths, tableLine } from "../layout.js";

type Properties = {
  readonly columns: ReadonlyArray<Column>;
  readonly rows: ReadonlyArray<ReadonlyArray<string>>;
  /** Terminal columns the table may use. */
  readonly width: number;
  /** Index in `rows` of the highlighted row. */
  readonly selected?: number;
  /** Row indexes drawn dimmed (inactive, revoked). */
  readonly dimmed?: ReadonlySet<number>;
  /** Row indexes drawn in red (lagging, failing). */
  readonly alert?: ReadonlySet<number>;
  /** What to say when there are no rows. */
  readonly empty?: string;
};

/** A table that never wraps: bold header, one line per row, the selected row inverted. */
export const Table = ({ columns, rows, width, selected, dimmed, alert, empty = "(none)" }: Properties) => {
  const widths = columnWidths(columns, rows, width);
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        {tableLine(
          columns,
          widths,
          columns.map((c) => c.header),
        )}
      </Text>
      {rows.length === 0 ? <Text dimColor>{empty}</Text> : null}
      {rows.map((row, i) => (
        <Text
          // biome-ignore lint/suspicious/noArrayIndexKey: a row's identity is its position in the window.
          key={i}
          wrap="truncate"
          inverse={i === selected}
          dimColor={dimmed?.has(i) === true}
          {...(alert?.has(i) === true ? { color: "red" } : {})}
        >
          {tableLine(columns, widths, row)}
        </Text>
      ))}
    </Box>
  );
};
