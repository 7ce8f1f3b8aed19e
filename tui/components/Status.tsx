import { Text } from "ink";
import { clock } from "../format.js";

type Properties = {
  readonly at: Date | undefined;
  readonly error: string | undefined;
  /** A message about the last action (created, revoked, ...), shown when all is well. */
  readonly note?: string | undefined;
};

/** One line: fresh, loading, or stale because the service cannot be reached (and retrying). */
export const Status = ({ at, error, note }: Properties) => {
  if (error !== undefined)
    return (
      <Text color="red" wrap="truncate">
        {at === undefined ? "" : `data of ${clock(at)} UTC · `}cannot reach the service, retrying: {error}
      </Text>
    );
  if (at === undefined) return <Text dimColor>loading…</Text>;
  return (
    <Text dimColor wrap="truncate">
      updated {clock(at)} UTC{note === undefined ? "" : ` · ${note}`}
    </Text>
  );
};
