import { Text } from "ink";

type Properties = { readonly label: string; readonly value: string; readonly color?: string };

/** A `label  value` line of a detail view. */
export const Field = ({ label, value, color }: Properties) => (
  <Text wrap="truncate">
    <Text dimColor>{label.padEnd(12)}</Text>
    {color === undefined ? value : <Text color={color}>{value}</Text>}
  </Text>
);
