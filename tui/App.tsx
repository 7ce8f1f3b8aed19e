import { Box, Text, useApp, useInput } from "ink";
import { useState } from "react";
import type { AdminClient } from "./AdminClient.js";
import { KeysScreen } from "./screens/KeysScreen.js";
import { UsageScreen } from "./screens/UsageScreen.js";

const SCREENS = [
  { key: "1", title: "Usage", render: (client: AdminClient) => <UsageScreen client={client} /> },
  { key: "2", title: "Keys", render: (client: AdminClient) => <KeysScreen client={client} /> },
] as const;

/** Screen switcher with a help line: number keys change screens, q quits. */
export const App = ({ client }: { readonly client: AdminClient }) => {
  const { exit } = useApp();
  const [current, setCurrent] = useState(0);
  useInput((input) => {
    if (input === "q") exit();
    const index = SCREENS.findIndex((screen) => screen.key === input);
    if (index !== -1) setCurrent(index);
  });
  const screen = SCREENS[current]!;
  return (
    <Box flexDirection="column">
      <Text>
        {SCREENS.map((s, i) => (
          <Text key={s.key} inverse={i === current}>
            {` ${s.key} ${s.title} `}
          </Text>
        ))}
      </Text>
      <Box marginY={1}>{screen.render(client)}</Box>
      <Text dimColor>{SCREENS.map((s) => `${s.key}: ${s.title.toLowerCase()}`).join("  ")} q: quit</Text>
    </Box>
  );
};
