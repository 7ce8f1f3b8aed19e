import { Box } from "ink";
import type { AdminClient } from "../AdminClient.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { usePoll } from "../hooks/use-poll.js";

/** Compute units and requests per team over the last 24 hours, most CU first. */
export const UsageScreen = ({ client }: { readonly client: AdminClient }) => {
  const polled = usePoll(() => Promise.all([client.usage(24), client.listTeams()]), 2_000);
  const value = polled.state === "ok" ? polled.value : polled.state === "error" ? polled.last : undefined;
  const names = new Map((value?.[1].teams ?? []).map((t) => [t.team_id, t.name]));
  const totals = new Map<string, { cu: number; requests: number; errors: number }>();
  for (const row of value?.[0].rows ?? []) {
    const total = totals.get(row.team_id) ?? { cu: 0, requests: 0, errors: 0 };
    totals.set(row.team_id, {
      cu: total.cu + row.cu,
      requests: total.requests + row.requests,
      errors: total.errors + row.errors,
    });
  }
  const rows = [...totals.entries()]
    .sort((a, b) => b[1].cu - a[1].cu)
    .map(([team, t]) => [names.get(team) ?? team, String(t.cu), String(t.requests), String(t.errors)]);
  return (
    <Box flexDirection="column">
      <Table header={["TEAM", "CU (24 h)", "REQUESTS", "ERRORS"]} rows={rows} />
      <Status polled={polled} />
    </Box>
  );
};
