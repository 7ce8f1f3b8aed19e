import { Box, Text } from "ink";
import { Confirm } from "../components/Confirm.js";
import { HelpLine } from "../components/HelpLine.js";
import { Prompt } from "../components/Prompt.js";
import { ShownOnce } from "../components/ShownOnce.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { age, messageOf } from "../format.js";
import { useKeys } from "../hooks/use-keys.js";
import { useLock } from "../hooks/use-lock.js";
import { usePoll } from "../hooks/use-poll.js";
import { useViewState } from "../hooks/use-view-state.js";
import { windowStart } from "../layout.js";
import { editLine } from "../lineEdit.js";
import type { ScreenProps } from "./ScreenProps.js";

type Mode =
  | { readonly kind: "browse" }
  | { readonly kind: "team"; readonly value: string }
  | { readonly kind: "revoke"; readonly keyId: string }
  | { readonly kind: "created"; readonly key: string };

const BROWSE: Mode = { kind: "browse" };

/** API keys with their team and state; c creates one (shown once), r revokes the selected one. */
export const KeysScreen = ({ client, width, height, onLock }: ScreenProps) => {
  const [view, update, current] = useViewState<{
    readonly cursor: number;
    readonly start: number;
    readonly mode: Mode;
    readonly note: string | undefined;
  }>({ cursor: 0, start: 0, mode: BROWSE, note: undefined });
  const { cursor, start, mode, note } = view;
  const setMode = (next: Mode) => update({ mode: next });
  const setNote = (next: string) => update({ note: next });
  useLock(onLock, mode.kind !== "browse");
  const polled = usePoll(() => client.listKeys(), {
    intervalMs: 2_000,
    subscribe: (onChange) => client.watch("keys", onChange),
  });
  const keys = [...(polled.value ?? [])].sort(
    (a, b) => a.team_name.localeCompare(b.team_name) || a.created_at.localeCompare(b.created_at),
  );
  const pageSize = Math.max(2, height - (mode.kind === "created" ? 8 : 4));
  const moveTo = (target: (cursor: number) => number) =>
    update(({ cursor, start }) => {
      const clamped = Math.max(0, Math.min(target(cursor), keys.length - 1));
      return { cursor: clamped, start: windowStart(start, clamped, pageSize, keys.length) };
    });
  const finish = (pending: Promise<string>) =>
    pending.then(
      (message) => {
        setNote(message);
        polled.refresh();
      },
      (error: unknown) => setNote(`failed: ${messageOf(error)}`),
    );

  useKeys((input, key) => {
    const { mode, cursor } = current.current;
    if (mode.kind === "created") return setMode(BROWSE);
    if (mode.kind === "team") {
      const edit = editLine(mode.value, input, key);
      if (edit.kind === "cancel") setMode(BROWSE);
      else if (edit.kind === "edit") setMode({ kind: "team", value: edit.value });
      else if (edit.value.trim() !== "") {
        setMode(BROWSE);
        void finish(
          client.createKey(edit.value.trim()).then(({ key: created, record, team }) => {
            setMode({ kind: "created", key: created });
            return `created ${record.key_id} for ${team.name}`;
          }),
        );
      }
      return;
    }
    if (mode.kind === "revoke") {
      if (input === "y") {
        setMode(BROWSE);
        void finish(client.revokeKey(mode.keyId).then(({ record }) => `revoked ${record.key_id}`));
      } else if (input === "n" || key.escape) setMode(BROWSE);
      return;
    }
    if (key.upArrow || input === "k") moveTo((c) => c - 1);
    else if (key.downArrow || input === "j") moveTo((c) => c + 1);
    else if (key.pageUp) moveTo((c) => c - pageSize);
    else if (key.pageDown) moveTo((c) => c + pageSize);
    else if (input === "c") {
      onLock(true);
      setMode({ kind: "team", value: "" });
    } else if (input === "r") {
      const selected = keys[cursor];
      if (selected !== undefined && selected.revoked_at === null) {
        onLock(true);
        setMode({ kind: "revoke", keyId: selected.key_id });
      }
    }
  });

  const window = keys.slice(start, start + pageSize);
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold>API keys</Text>
        <Text dimColor>
          {" "}
          · {keys.filter((k) => k.revoked_at === null).length} active of {keys.length}
        </Text>
      </Text>
      <Table
        columns={[
          { header: "KEY ID" },
          { header: "TEAM", shrink: true, min: 6 },
          { header: "PREFIX" },
          { header: "STATE" },
          { header: "RATE", align: "right" },
          { header: "AGE", align: "right" },
        ]}
        rows={window.map((k) => [
          k.key_id,
          k.team_name,
          `${k.prefix}…`,
          k.revoked_at === null ? "active" : "revoked",
          k.rate_limit === null ? "default" : `${k.rate_limit.requests_per_second}/s`,
          age(k.created_at),
        ])}
        width={width}
        selected={cursor - start}
        dimmed={new Set(window.flatMap((k, i) => (k.revoked_at === null ? [] : [i])))}
        empty="(no keys: press c to create one)"
      />
      {mode.kind === "created" ? <ShownOnce label="New API key" value={mode.key} /> : null}
      {mode.kind === "team" ? (
        <Prompt label="team of the new key" value={mode.value} />
      ) : mode.kind === "revoke" ? (
        <Confirm question={`Revoke ${mode.keyId}? Requests with it fail at once.`} />
      ) : (
        <Status at={polled.at} error={polled.error} note={note} />
      )}
      <HelpLine
        keys={
          mode.kind === "team"
            ? [
                ["⏎", "create"],
                ["Esc", "cancel"],
              ]
            : [
                ["↑↓", "select"],
                ["c", "create"],
                ["r", "revoke"],
                ["1-5", "screens"],
                ["q", "quit"],
              ]
        }
      />
    </Box>
  );
};
