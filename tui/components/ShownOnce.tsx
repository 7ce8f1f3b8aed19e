import { Box, Text } from "ink";

type Properties = { readonly label: string; readonly value: string };

/** A secret shown this once (a new API key, a rotated signing secret), until any key is pressed. */
export const ShownOnce = ({ label, value }: Properties) => (
  <Box flexDirection="column" borderStyle="round" borderColor="green" paddingX={1}>
    <Text color="green">{label} (shown once: copy it now)</Text>
    <Text bold>{value}</Text>
    <Text dimColor>press any key to hide it</Text>
  </Box>
);
