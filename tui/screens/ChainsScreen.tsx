import { Box, Text } from "ink";
import { discoveryLine, registryLine } from "../../src/admin/chainStatusLines.js";
import {
  CAPABILITY_COLUMNS,
  capabilityCells,
  endpointProblems,
  HEALTH_COLUMNS,
  healthCells,
  isTroubled,
  skippedHistory,
  tracesNote,
} from "../chainEndpointRows.js";
import { HelpLine } from "../components/HelpLine.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { age, compact } from "../format.js";
import { useKeys } from "../hooks/use-keys.js";
import { usePoll } from "../hooks/use-poll.js";
import { useViewState } from "../hooks/use-view-state.js";
import { windowStart } from "../layout.js";
import type { ScreenProps } from "./ScreenProps.js";

/** Blocks behind the head from which a chain counts as lagging. */
export const LAG_ALERT_BLOCKS = 10;

const dash = (n: number | null) => (n === null ? "-" : String(n));

/** Lines of endpoint problems shown under the selected chain's tables. */
const MAX_ENDPOINT_PROBLEMS = 2;

/**
 * Each chain's follower: head, indexed (processed) block, lag, events per
 * second, RPC errors and reorgs, live from the ingest status; lagging chains
 * and chains with RPC errors in red, with their last error below. Under the
 * list, the selected chain's RPC endpoints as its ingest process sees them:
 * one table of their health, one of what each can answer. Two tables rather
 * than one wide row, so that at 80 columns the URLs stay readable; a pane for
 * the selected chain rather than rows under every chain, so that the chain
 * list keeps one line per chain however many endpoints each has.
 */
export const ChainsScreen = ({ client, width, height }: ScreenProps) => {
  const [view, update] = useViewState({ cursor: 0, start: 0 });
  const polled = usePoll(() => client.chains(), {
    intervalMs: 2_000,
    subscribe: (onChange) => client.watch("chains", onChange),
  });
  const chains = polled.value ?? [];
  const lagging = chains.filter(
    (c) => c.mode !== "live" || c.store_full === true || (c.lag ?? 0) >= LAG_ALERT_BLOCKS,
  );
  const failing = chains.filter((c) => c.last_error !== null);
  const cursor = Math.max(0, Math.min(view.cursor, chains.length - 1));
  const selected = chains[cursor];
  const node = selected?.node;
  const endpoints = node?.endpoints ?? [];
  const problems = endpointProblems(endpoints).slice(0, MAX_ENDPOINT_PROBLEMS);
  const traces = selected === undefined ? undefined : tracesNote(selected);
  const skipped = selected === undefined ? [] : skippedHistory(selected);
  const discovered = selected === undefined ? undefined : discoveryLine(selected);
  const backfill = selected === undefined ? undefined : registryLine(selected);

  // Lines: title, the chains' header, their errors, the endpoints' title, skipped history, status
  // and help; with endpoints, the two headers, the row of what they serve together and their
  // problems. Endpoint rows come in pairs (one per table) and give way to three chain rows.
  const free =
    height -
    5 -
    Math.min(failing.length, 3) -
    skipped.length -
    (discovered === undefined ? 0 : 1) -
    (backfill === undefined ? 0 : 1) -
    (node === undefined ? 0 : 2 + (endpoints.length > 1 ? 1 : 0) + problems.length);
  const endpointRows = Math.min(
    endpoints.length,
    Math.max(1, Math.floor((free - Math.min(chains.length, 3)) / 2)),
  );
  const chainRows = Math.max(1, free - 2 * endpointRows);
  const start = windowStart(view.start, cursor, chainRows, chains.length);
  const window = chains.slice(start, start + chainRows);
  const shown = endpoints.slice(0, endpointRows);

  const moveTo = (step: number) =>
    update(({ cursor, start }) => {
      const clamped = Math.max(0, Math.min(cursor + step, chains.length - 1));
      return { cursor: clamped, start: windowStart(start, clamped, chainRows, chains.length) };
    });
  useKeys((input, key) => {
    if (key.upArrow || input === "k") moveTo(-1);
    else if (key.downArrow || input === "j") moveTo(1);
  });

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
        rows={window.map((c) => [
          String(c.chain_id),
          c.name,
          c.store_full === true ? "STORE FULL" : c.mode,
          dash(c.head),
          dash(c.processed),
          dash(c.lag),
          compact(c.events_per_second),
          String(c.rpc_errors),
          String(c.reorgs),
          age(c.updated_at),
        ])}
        width={width}
        selected={cursor - start}
        alert={new Set(window.flatMap((c, i) => (lagging.includes(c) || c.last_error !== null ? [i] : [])))}
        empty="(no chain followers: is an ingest process running?)"
      />
      {failing.slice(0, 3).map((c) => (
        <Text key={c.chain_id} color="red" wrap="truncate">
          {c.name}: {c.last_error}
        </Text>
      ))}
      {selected === undefined ? null : (
        <Text wrap="truncate">
          <Text bold>Endpoints of {selected.name}</Text>
          {node === undefined ? (
            <Text dimColor> · not reported by its ingest process</Text>
          ) : shown.length < endpoints.length ? (
            <Text dimColor>
              {" "}
              · {shown.length} of {endpoints.length} shown
            </Text>
          ) : null}
          {traces === undefined ? null : (
            <Text {...(traces.alert ? { color: "red" } : { dimColor: true })}> · {traces.text}</Text>
          )}
        </Text>
      )}
      {skipped.map((line) => (
        <Text key={line} color="red" wrap="truncate">
          {line}
        </Text>
      ))}
      {discovered === undefined ? null : (
        <Text wrap="truncate" {...(discovered.alert ? { color: "red" } : { dimColor: true })}>
          {discovered.text}
        </Text>
      )}
      {backfill === undefined ? null : (
        <Text wrap="truncate" {...(backfill.alert ? { color: "red" } : { dimColor: true })}>
          {backfill.text}
        </Text>
      )}
      {node === undefined ? null : (
        <>
          <Table
            columns={HEALTH_COLUMNS}
            rows={healthCells(shown)}
            width={width}
            alert={new Set(shown.flatMap((e, i) => (isTroubled(e) ? [i] : [])))}
            dimmed={new Set(shown.flatMap((e, i) => (e.state === "unknown" ? [i] : [])))}
            empty="(no endpoints)"
          />
          <Table
            columns={CAPABILITY_COLUMNS}
            rows={capabilityCells(node, shown)}
            width={width}
            empty="(no endpoints)"
          />
          {problems.map((problem) => (
            <Text key={problem} color="red" wrap="truncate">
              {problem}
            </Text>
          ))}
        </>
      )}
      <Status at={polled.at} error={polled.error} />
      <HelpLine
        keys={[
          ["↑↓", "select"],
          ["1-5", "screens"],
          ["q", "quit"],
        ]}
      />
    </Box>
  );
};
