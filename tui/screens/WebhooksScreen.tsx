import { Box, Text } from "ink";
import { useEffect } from "react";
import type { AdminClient, DeliveryStats, WebhookQuery } from "../AdminClient.js";
import { HelpLine } from "../components/HelpLine.js";
import { Prompt } from "../components/Prompt.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { isFailing } from "../deliveryText.js";
import { messageOf } from "../format.js";
import { useKeys } from "../hooks/use-keys.js";
import { useLock } from "../hooks/use-lock.js";
import { usePoll } from "../hooks/use-poll.js";
import { useViewState } from "../hooks/use-view-state.js";
import { windowStart } from "../layout.js";
import { editLine } from "../lineEdit.js";
import { WEBHOOK_COLUMNS, webhookCells } from "../webhookColumns.js";
import type { ScreenProps } from "./ScreenProps.js";
import { WebhookDetailScreen } from "./WebhookDetailScreen.js";

/** A page of webhooks with their delivery figures; the page still shows when the figures cannot be read. */
const loadPage = async (client: AdminClient, query: WebhookQuery) => {
  const page = await client.listWebhooks(query);
  if (page.webhooks.length === 0)
    return { page, stats: new Map<string, DeliveryStats>(), statsError: undefined };
  return client.deliveries(page.webhooks.map((w) => w.id)).then(
    (list) => ({ page, stats: new Map(list.map((s) => [s.webhook_id, s])), statsError: undefined }),
    (error: unknown) => ({ page, stats: undefined, statsError: messageOf(error) }),
  );
};

const failing = (stats: DeliveryStats | undefined) => stats !== undefined && isFailing(stats);

const FILTERS = ["all", "active", "inactive"] as const;
const SORTS = ["team", "name", "addresses", "created", "type", "active"] as const;

const next = <A,>(all: ReadonlyArray<A>, current: A): A => all[(all.indexOf(current) + 1) % all.length]!;

interface View {
  readonly cursor: number;
  readonly start: number;
  readonly search: string;
  /** The search being typed, or `undefined` when not typing. */
  readonly typing: string | undefined;
  readonly filter: (typeof FILTERS)[number];
  readonly sort: (typeof SORTS)[number];
  readonly descending: boolean;
  readonly openId: string | undefined;
}

const INITIAL: View = {
  cursor: 0,
  start: 0,
  search: "",
  typing: undefined,
  filter: "all",
  sort: "team",
  descending: false,
  openId: undefined,
};

const TOP = { cursor: 0, start: 0 } as const;

/**
 * Every team's webhooks, one window of rows at a time (the server filters,
 * sorts and pages, so thousands stay fast): move with ↑↓ and PgUp/PgDn,
 * search with /, filter with f, sort with s, open one with ⏎.
 */
export const WebhooksScreen = ({ client, width, height, onLock }: ScreenProps) => {
  const [view, update, current] = useViewState(INITIAL);
  const pageSize = Math.max(3, height - 5);
  useLock(onLock, view.typing !== undefined);

  const query: WebhookQuery = {
    offset: view.start,
    limit: pageSize,
    sort: view.sort,
    descending: view.descending,
    ...(view.search === "" ? {} : { search: view.search }),
    ...(view.filter === "all" ? {} : { active: view.filter === "active" }),
  };
  const polled = usePoll(() => loadPage(client, query), {
    intervalMs: 2_000,
    deps: [view.start, pageSize, view.search, view.filter, view.sort, view.descending, view.openId],
    subscribe: (onChange) => client.watch("webhooks", onChange),
  });
  const page = polled.value?.page;
  const stats = polled.value?.stats;
  const total = page?.total ?? 0;

  const moveTo = (target: (cursor: number) => number) =>
    update(({ cursor, start }) => {
      const clamped = Math.max(0, Math.min(target(cursor), total - 1));
      return { cursor: clamped, start: windowStart(start, clamped, pageSize, total) };
    });
  /** PgUp/PgDn: the window and the cursor move by a page, so the cursor keeps its place on screen. */
  const pageBy = (pages: number) =>
    update(({ cursor, start }) => {
      const lastStart = Math.max(0, total - pageSize);
      const nextStart = Math.max(0, Math.min(start + pages * pageSize, lastStart));
      const nextCursor = Math.max(0, Math.min(cursor + nextStart - start, total - 1));
      return {
        start: nextStart,
        cursor:
          nextStart === start ? Math.max(0, Math.min(cursor + pages * pageSize, total - 1)) : nextCursor,
      };
    });
  // The list shrank under the cursor (deleted webhooks, a narrower filter): stay on its last row.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a new total should move the cursor.
  useEffect(() => {
    if (total > 0 && current.current.cursor >= total) moveTo(() => total - 1);
  }, [total]);

  useKeys(
    (input, key) => {
      const { typing, search, filter, sort, descending, cursor } = current.current;
      if (typing !== undefined) {
        const edit = editLine(typing, input, key);
        if (edit.kind === "cancel") update({ typing: undefined });
        else if (edit.kind === "edit") update({ typing: edit.value });
        else update({ typing: undefined, search: edit.value.trim(), ...TOP });
        return;
      }
      if (key.upArrow || input === "k") moveTo((c) => c - 1);
      else if (key.downArrow || input === "j") moveTo((c) => c + 1);
      else if (key.pageUp) pageBy(-1);
      else if (key.pageDown || input === " ") pageBy(1);
      else if (key.home || input === "g") moveTo(() => 0);
      else if (key.end || input === "G") moveTo(() => total - 1);
      else if (input === "/") {
        onLock(true);
        update({ typing: search });
      } else if (key.escape && search !== "") update({ search: "", ...TOP });
      else if (input === "f") update({ filter: next(FILTERS, filter), ...TOP });
      else if (input === "s") update({ sort: next(SORTS, sort), ...TOP });
      else if (input === "r") update({ descending: !descending, ...TOP });
      else if (key.return) {
        const selected = page?.webhooks[cursor - page.offset];
        if (selected !== undefined) update({ openId: selected.id });
      }
    },
    { isActive: view.openId === undefined },
  );

  if (view.openId !== undefined)
    return (
      <WebhookDetailScreen
        client={client}
        width={width}
        height={height}
        onLock={onLock}
        id={view.openId}
        onBack={() => update({ openId: undefined })}
      />
    );

  const rows = page?.webhooks ?? [];
  const shown =
    page === undefined || rows.length === 0 ? "0" : `${page.offset + 1}-${page.offset + rows.length}`;
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold>Webhooks</Text>
        <Text dimColor>
          {` ${view.filter} · sort ${view.sort} ${view.descending ? "↓" : "↑"}`}
          {view.search === "" ? "" : ` · search "${view.search}"`}
          {polled.value?.statsError === undefined
            ? ""
            : ` · delivery statistics unavailable (${polled.value.statsError})`}
        </Text>
      </Text>
      <Table
        columns={WEBHOOK_COLUMNS}
        rows={rows.map((w) => webhookCells(w, stats?.get(w.id)))}
        width={width}
        selected={view.cursor - (page?.offset ?? 0)}
        dimmed={new Set(rows.flatMap((w, i) => (w.active ? [] : [i])))}
        alert={new Set(rows.flatMap((w, i) => (failing(stats?.get(w.id)) ? [i] : [])))}
        empty={view.search === "" && view.filter === "all" ? "(no webhooks)" : "(no webhook matches)"}
      />
      <Text dimColor wrap="truncate">
        {shown} of {total} matching · {page?.count ?? 0} in all
      </Text>
      {view.typing === undefined ? (
        <Status at={polled.at} error={polled.error} />
      ) : (
        <Prompt label="search name, id, url or team" value={view.typing} />
      )}
      <HelpLine
        keys={
          view.typing === undefined
            ? [
                ["↑↓", "move"],
                ["PgUp/PgDn", "page"],
                ["⏎", "open"],
                ["/", "search"],
                ["f", "filter"],
                ["s", "sort"],
                ["r", "reverse"],
                ["1-5", "screens"],
                ["q", "quit"],
              ]
            : [
                ["⏎", "search"],
                ["Esc", "cancel"],
              ]
        }
      />
    </Box>
  );
};
