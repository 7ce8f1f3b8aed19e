import { Text } from "ink";

type Properties = { readonly question: string };

/** A pending action waiting for y or n. */
export const Confirm = ({ question }: Properties) => (
  <Text color="yellow" wrap="truncate">
    {question} <Text bold>y</Text> yes <Text bold>n</Text> no
  </Text>
);
