import { Box, Text } from "ink";
import { HelpLine } from "../components/HelpLine.js";
import { HourlyChart } from "../components/HourlyChart.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { compact } from "../format.js";
import { useKeys } from "../hooks/use-keys.js";
import { usePoll } from "../hooks/use-poll.js";
import { useViewState } from "../hooks/use-view-state.js";
import { windowStart } from "../layout.js";
import { endpointBreakdown, type Grouping, hourlyCu, usageTotals } from "../usageTotals.js";
import type { ScreenProps } from "./ScreenProps.js";

const MONTH_HOURS = 30 * 24;

/**
 * Compute units per team (or per API key, g) this hour, over 24 hours and over
 * 30 days, most CU today first; below, the selected row's endpoints and its
 * hourly CU. The day refreshes on every usage change, the 30 days every 30 s.
 */
export const UsageScreen = ({ client, width, height }: ScreenProps) => {
  const [view, update] = useViewState<{
    readonly grouping: Grouping;
    readonly cursor: number;
    readonly start: number;
  }>({ grouping: "team", cursor: 0, start: 0 });
  const { grouping, cursor, start } = view;
  const day = usePoll(() => Promise.all([client.usage(24), client.listTeams()]), {
    intervalMs: 2_000,
    subscribe: (onChange) => client.watch("usage", onChange),
  });
  // Hours older than a day rarely change: read them every 30 s, the last day on every change.
  const older = usePoll(() => client.usage(MONTH_HOURS, 24), { intervalMs: 30_000 });
  const now = (day.at ?? new Date()).getTime();
  const dayRows = day.value?.[0] ?? [];
  const names = new Map((day.value?.[1] ?? []).map((t) => [t.team_id, t.name]));
  const totals = usageTotals(dayRows, older.value ?? [], grouping, now);
  const groupRows = Math.max(2, Math.floor((height - 9) * 0.55));
  const endpointRows = Math.max(1, height - 9 - groupRows);
  const selected = totals[Math.min(cursor, totals.length - 1)];
  const endpoints = selected === undefined ? [] : endpointBreakdown(dayRows, grouping, selected.id, now);

  const moveTo = (step: number) =>
    update(({ cursor, start }) => {
      const clamped = Math.max(0, Math.min(cursor + step, totals.length - 1));
      return { cursor: clamped, start: windowStart(start, clamped, groupRows, totals.length) };
    });
  useKeys((input, key) => {
    if (key.upArrow || input === "k") moveTo(-1);
    else if (key.downArrow || input === "j") moveTo(1);
    else if (input === "g")
      update(({ grouping }) => ({ grouping: grouping === "team" ? "key" : "team", cursor: 0, start: 0 }));
  });

  const label = (teamId: string) => names.get(teamId) ?? teamId;
  const window = totals.slice(start, start + groupRows);
  const figures = (t: (typeof totals)[number]) => [
    compact(t.cuHour),
    compact(t.cuDay),
    older.value === undefined ? "…" : compact(t.cuMonth),
    compact(t.requestsDay),
    compact(t.errorsDay),
  ];
  const numeric = ["CU 1h", "CU 24h", "CU 30d", "REQ 24h", "ERR 24h"].map((header) => ({
    header,
    align: "right" as const,
  }));
  const who = selected === undefined ? "" : grouping === "team" ? label(selected.id) : selected.id;
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        Usage by {grouping}
        <Text dimColor> · {totals.length} with requests in 30 days, most CU in 24 h first</Text>
      </Text>
      <Table
        columns={[
          { header: grouping === "team" ? "TEAM" : "KEY", shrink: true, min: 8 },
          ...(grouping === "key" ? [{ header: "TEAM", shrink: true, min: 6 }] : []),
          ...numeric,
        ]}
        rows={window.map((t) =>
          grouping === "team" ? [label(t.id), ...figures(t)] : [t.id, label(t.teamId), ...figures(t)],
        )}
        width={width}
        selected={cursor - start}
        empty="(no usage recorded)"
      />
      <Text bold wrap="truncate">
        Endpoints of {who || "-"} <Text dimColor>(24 h)</Text>
      </Text>
      <Table
        columns={[
          { header: "ENDPOINT", shrink: true },
          { header: "CU", align: "right" },
          { header: "REQUESTS", align: "right" },
          { header: "ERRORS", align: "right" },
        ]}
        rows={endpoints
          .slice(0, endpointRows)
          .map((e) => [e.endpoint, compact(e.cu), compact(e.requests), compact(e.errors)])}
        width={width}
      />
      <HourlyChart
        title={`CU per hour, last 24 h, ${who || "everyone"}`}
        values={hourlyCu(dayRows, grouping, selected?.id, now)}
      />
      <Status at={day.at} error={day.error ?? older.error} />
      <HelpLine
        keys={[
          ["↑↓", "select"],
          ["g", grouping === "team" ? "by key" : "by team"],
          ["1-5", "screens"],
          ["q", "quit"],
        ]}
      />
    </Box>
  );
};
