import { Box, Text } from "ink";
import { HelpLine } from "../components/HelpLine.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { age, compact } from "../format.js";
import { usePoll } from "../hooks/use-poll.js";
import type { ScreenProps } from "./ScreenProps.js";

/** Blocks behind the head from which a chain counts as lagging. */
export const LAG_ALERT_BLOCKS = 10;

const dash = (n: number | null) => (n === null ? "-" : String(n));

/**
 * Each chain's follower: head, indexed (processed) block, lag, events per
 * second, RPC errors and reorgs, live from the ingest status; lagging chains
 * and chains with RPC errors in red, with their last error below.
 */
export const ChainsScreen = ({ client, width, height }: ScreenProps) => {
  const polled = usePoll(() => client.chains(), {
    intervalMs: 2_000,
    subscribe: (onChange) => client.watch("chains", onChange),
  });
  const chains = polled.value ?? [];
  const lagging = chains.filter((c) => c.mode !== "live" || (c.lag ?? 0) >= LAG_ALERT_BLOCKS);
  const failing = chains.filter((c) => c.last_error !== null);
  const tableRows = Math.max(1, height - 5 - Math.min(failing.length, 3));
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold>Chains </Text>
        {chains.length === 0 ? (
          <Text dimColor>no chain has reported yet</Text>
        ) : lagging.length === 0 ? (
          <Text color="green">all {chains.length} live, none lagging</Text>
        ) : (
          <Text color="red">
            behind: {lagging.map((c) => `${c.name} (${c.mode}, lag ${dash(c.lag)})`).join(", ")}
          </Text>
        )}
      </Text>
      <Table
        columns={[
          { header: "ID", align: "right" },
          { header: "NAME", shrink: true, min: 6 },
          { header: "MODE" },
          { header: "HEAD", align: "right" },
          { header: "INDEXED", align: "right" },
          { header: "LAG", align: "right" },
          { header: "EV/S", align: "right" },
          { header: "RPC ERR", align: "right" },
          { header: "REORGS", align: "right" },
          { header: "SEEN", align: "right" },
        ]}
        rows={chains
          .slice(0, tableRows)
          .map((c) => [
            String(c.chain_id),
            c.name,
            c.mode,
            dash(c.head),
            dash(c.processed),
            dash(c.lag),
            compact(c.events_per_second),
            String(c.rpc_errors),
            String(c.reorgs),
            age(c.updated_at),
          ])}
        width={width}
        alert={new Set(chains.flatMap((c, i) => (lagging.includes(c) || c.last_error !== null ? [i] : [])))}
        empty="(no chain followers: is an ingest process running?)"
      />
      {failing.slice(0, 3).map((c) => (
        <Text key={c.chain_id} color="red" wrap="truncate">
          {c.name}: {c.last_error}
        </Text>
      ))}
      <Status at={polled.at} error={polled.error} />
      <HelpLine
        keys={[
          ["1-5", "screens"],
          ["q", "quit"],
        ]}
      />
    </Box>
  );
};
