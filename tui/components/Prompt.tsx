import { Text } from "ink";

type Properties = { readonly label: string; readonly value: string };

/** A one-line text field being typed into, with a block cursor. */
export const Prompt = ({ label, value }: Properties) => (
  <Text wrap="truncate">
    <Text color="cyan">{label}: </Text>
    {value}
    <Text inverse> </Text>
  </Text>
);
