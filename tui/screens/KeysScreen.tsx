import { Box } from "ink";
import type { AdminClient } from "../AdminClient.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { usePoll } from "../hooks/use-poll.js";

/** API keys with their team and state. */
export const KeysScreen = ({ client }: { readonly client: AdminClient }) => {
  const polled = usePoll(() => client.listKeys(), 2_000);
  const keys =
    polled.state === "ok" ? polled.value.keys : polled.state === "error" ? (polled.last?.keys ?? []) : [];
  return (
    <Box flexDirection="column">
      <Table
        header={["KEY ID", "TEAM", "PREFIX", "STATE"]}
        rows={keys.map((k) => [
          k.key_id,
          k.team_name,
          `${k.prefix}…`,
          k.revoked_at === null ? "active" : "revoked",
        ])}
      />
      <Status polled={polled} />
    </Box>
  );
};
