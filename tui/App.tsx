import { Box, useApp } from "ink";
import { useCallback, useRef, useState } from "react";
import type { AdminClient } from "./AdminClient.js";
import { Tabs } from "./components/Tabs.js";
import { KeysRoot, useKeys } from "./hooks/use-keys.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { ChainsScreen } from "./screens/ChainsScreen.js";
import { KeysScreen } from "./screens/KeysScreen.js";
import type { ScreenProps } from "./screens/ScreenProps.js";
import { UsageScreen } from "./screens/UsageScreen.js";
import { WalletScreen } from "./screens/WalletScreen.js";
import { WebhooksScreen } from "./screens/WebhooksScreen.js";

const SCREENS = [
  { title: "Webhooks", Screen: WebhooksScreen },
  { title: "Usage", Screen: UsageScreen },
  { title: "Chains", Screen: ChainsScreen },
  { title: "Keys", Screen: KeysScreen },
  { title: "Wallet", Screen: WalletScreen },
] as const satisfies ReadonlyArray<{ title: string; Screen: (props: ScreenProps) => React.ReactNode }>;

/**
 * Tabs on the first line, the current screen below. 1-5 or Tab change screens
 * and q quits, except while a screen reads text or a confirmation.
 */
export const App = ({ client }: { readonly client: AdminClient }) => (
  <KeysRoot>
    <Shell client={client} />
  </KeysRoot>
);

const Shell = ({ client }: { readonly client: AdminClient }) => {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [current, setCurrent] = useState(0);
  const locked = useRef(false);
  const onLock = useCallback((value: boolean) => {
    locked.current = value;
  }, []);
  useKeys((input, key) => {
    if (locked.current) return;
    if (input === "q") exit();
    else if (key.tab) setCurrent((c) => (c + 1) % SCREENS.length);
    else if (/^[1-9]$/.test(input) && Number(input) <= SCREENS.length) setCurrent(Number(input) - 1);
  });
  const { Screen } = SCREENS[current]!;
  return (
    <Box flexDirection="column" width={columns}>
      <Tabs titles={SCREENS.map((s) => s.title)} current={current} />
      <Screen client={client} width={columns} height={Math.max(8, rows - 2)} onLock={onLock} />
    </Box>
  );
};
