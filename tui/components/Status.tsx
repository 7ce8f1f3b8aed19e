import { Text } from "ink";
import type { Polled } from "../hooks/use-poll.js";

/** One line saying whether the data on screen is fresh, loading, or stale because a call failed. */
export const Status = ({ polled }: { readonly polled: Polled<unknown> }) => {
  if (polled.state === "loading") return <Text dimColor>loading…</Text>;
  if (polled.state === "error") return <Text color="red">cannot reach the service: {polled.message}</Text>;
  return <Text dimColor>updated {polled.at.toISOString().slice(11, 19)} UTC</Text>;
};
