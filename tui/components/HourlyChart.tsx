import { Box, Text } from "ink";
import { compact, sparkline } from "../format.js";

type Properties = {
  readonly title: string;
  /** One value per hour, oldest first; the last is the current hour. */
  readonly values: ReadonlyArray<number>;
};

/** An hourly sparkline, two characters an hour, with its peak and hour marks. */
export const HourlyChart = ({ title, values }: Properties) => {
  const line = [...sparkline(values)].map((c) => c + c).join("");
  const peak = Math.max(0, ...values);
  const marks = values.map((_, i) => (i % 6 === 0 ? `-${values.length - i}h`.padEnd(12) : "")).join("");
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold>{title}</Text>
        <Text dimColor> peak {compact(peak)}</Text>
      </Text>
      <Text color="cyan" wrap="truncate">
        {line}
      </Text>
      <Text dimColor wrap="truncate">
        {marks}
      </Text>
    </Box>
  );
};
