import { Text } from "ink";

type Properties = { readonly keys: ReadonlyArray<readonly [key: string, action: string]> };

/** The keys that work right now, as `key action` pairs, cut to the terminal width. */
export const HelpLine = ({ keys }: Properties) => (
  <Text wrap="truncate">
    {keys.map(([key, action]) => (
      <Text key={key}>
        <Text bold>{key}</Text>
        <Text dimColor> {action} </Text>
      </Text>
    ))}
  </Text>
);
