import { Box, Text } from "ink";
import type { AdminClient, DeliveryStats } from "../AdminClient.js";
import { Confirm } from "../components/Confirm.js";
import { Field } from "../components/Field.js";
import { HelpLine } from "../components/HelpLine.js";
import { ShownOnce } from "../components/ShownOnce.js";
import { Status } from "../components/Status.js";
import { attemptLine, deliverySummary, isFailing } from "../deliveryText.js";
import { filterSummary } from "../filterSummary.js";
import { age, messageOf } from "../format.js";
import { useKeys } from "../hooks/use-keys.js";
import { useLock } from "../hooks/use-lock.js";
import { usePoll } from "../hooks/use-poll.js";
import { useViewState } from "../hooks/use-view-state.js";
import type { ScreenProps } from "./ScreenProps.js";

type Props = ScreenProps & { readonly id: string; readonly onBack: () => void };

type Action = "toggle" | "rotate" | "redeliver";

/** The webhook with a page of addresses, and its delivery figures or why they cannot be read. */
const load = async (client: AdminClient, id: string, offset: number, limit: number) => {
  const [detail, stats] = await Promise.all([
    client.getWebhook(id, offset, limit),
    client.deliveries([id]).then(
      (list): DeliveryStats | string => list[0] ?? "no figures for this webhook",
      (error: unknown) => messageOf(error),
    ),
  ]);
  return { detail, stats };
};

type Mode =
  | { readonly kind: "browse" }
  | { readonly kind: "confirm"; readonly action: Action }
  | { readonly kind: "secret"; readonly secret: string };

const BROWSE: Mode = { kind: "browse" };

/** Lines given to the most recent delivery attempts. */
const ATTEMPT_LINES = 3;

/**
 * One webhook: its settings and filters, a page of its addresses, and the
 * actions, each behind a y/n confirmation: pause or resume, rotate the secret
 * (the new one is shown once), redeliver dead-lettered deliveries.
 */
export const WebhookDetailScreen = ({ client, width, height, onLock, id, onBack }: Props) => {
  const [view, update, current] = useViewState<{
    readonly offset: number;
    readonly mode: Mode;
    readonly note: string | undefined;
  }>({ offset: 0, mode: BROWSE, note: undefined });
  const { offset, mode, note } = view;
  const setMode = (next: Mode) => update({ mode: next });
  const setNote = (next: string) => update({ note: next });
  const pageSize = Math.max(2, height - 14 - ATTEMPT_LINES);
  const columns = Math.max(1, Math.floor((width + 1) / 44));
  const perPage = pageSize * columns;
  useLock(onLock, mode.kind !== "browse");
  const polled = usePoll(() => load(client, id, offset, perPage), {
    intervalMs: 2_000,
    deps: [id, offset, perPage],
    subscribe: (onChange) => client.watch("webhooks", onChange),
  });
  const detail = polled.value?.detail;
  const webhook = detail?.webhook;
  const stats = polled.value?.stats;

  const act = (action: Action) => {
    if (webhook === undefined) return;
    setMode(BROWSE);
    const done =
      action === "toggle"
        ? client
            .setWebhookActive(id, !webhook.active)
            .then(({ webhook: w }) =>
              setNote(w.active ? "resumed: deliveries flow again" : "paused: no deliveries"),
            )
        : action === "redeliver"
          ? client
              .redeliver(id)
              .then(({ requeued }) => setNote(`requeued ${requeued} dead-lettered deliveries`))
          : client.rotateWebhookSecret(id).then(({ secret }) => {
              setNote("secret rotated; the previous one signs for 24 h more");
              setMode({ kind: "secret", secret });
            });
    done.then(polled.refresh, (error: unknown) => setNote(`failed: ${messageOf(error)}`));
  };

  useKeys((input, key) => {
    const { mode, offset } = current.current;
    if (mode.kind === "secret") return setMode(BROWSE);
    if (mode.kind === "confirm") {
      if (input === "y") act(mode.action);
      else if (input === "n" || key.escape) setMode(BROWSE);
      return;
    }
    if (key.escape || key.leftArrow || key.backspace || key.delete) onBack();
    else if (input === "a" || input === "S") {
      onLock(true);
      setMode({ kind: "confirm", action: input === "a" ? "toggle" : "rotate" });
    } else if (input === "d") {
      if (typeof stats !== "object") setNote("redelivery unavailable: no delivery statistics");
      else if (stats.dead_lettered === 0) setNote("nothing to redeliver: no dead-lettered deliveries");
      else {
        onLock(true);
        setMode({ kind: "confirm", action: "redeliver" });
      }
    } else if (input === "]" || key.pageDown) {
      if (webhook !== undefined && offset + perPage < webhook.address_count)
        update({ offset: offset + perPage });
    } else if (input === "[" || key.pageUp) update({ offset: Math.max(0, offset - perPage) });
  });

  const addresses = detail?.addresses ?? [];
  // The page the data on screen belongs to (the one asked for may still be loading).
  const shownFrom = detail?.addresses_offset ?? 0;
  const lines = Array.from({ length: Math.ceil(addresses.length / columns) }, (_, row) =>
    addresses.slice(row * columns, row * columns + columns).join("  "),
  );
  return (
    <Box flexDirection="column">
      <Text bold wrap="truncate">
        Webhook {webhook?.name ?? id}
      </Text>
      <Field label="id" value={id} />
      <Field label="team" value={webhook === undefined ? "" : `${webhook.team_name} (${webhook.team_id})`} />
      <Field label="type · url" value={webhook === undefined ? "" : `${webhook.type} · ${webhook.url}`} />
      <Field
        label="active"
        value={webhook === undefined ? "" : webhook.active ? "yes" : "no (paused)"}
        color={webhook?.active === false ? "red" : "green"}
      />
      <Field label="filters" value={webhook === undefined ? "" : filterSummary(webhook)} />
      <Field
        label="changed"
        value={
          webhook === undefined
            ? ""
            : `${age(webhook.updated_at)} ago (created ${age(webhook.created_at)} ago)`
        }
      />
      {typeof stats === "object" ? (
        <Field
          label="deliveries"
          value={deliverySummary(stats)}
          {...(isFailing(stats) ? { color: "red" } : {})}
        />
      ) : (
        <Field
          label="deliveries"
          value={`delivery statistics unavailable${stats === undefined ? "" : ` (${stats})`}`}
          color="yellow"
        />
      )}
      <Box flexDirection="column" height={ATTEMPT_LINES}>
        {typeof stats === "object" && stats.recent_attempts.length > 0 ? (
          stats.recent_attempts.slice(0, ATTEMPT_LINES).map((attempt) => (
            <Text key={`${attempt.delivery_id}-${attempt.retry_index}-${attempt.at}`} wrap="truncate">
              <Text dimColor>{"attempt".padEnd(12)}</Text>
              {attemptLine(attempt)}
            </Text>
          ))
        ) : (
          <Field label="attempts" value="none yet" />
        )}
      </Box>
      <Text bold wrap="truncate">
        Addresses{" "}
        <Text dimColor>
          {addresses.length === 0 ? 0 : shownFrom + 1}-{shownFrom + addresses.length} of{" "}
          {webhook?.address_count ?? 0}
        </Text>
      </Text>
      {mode.kind === "secret" ? (
        <ShownOnce label="New signing secret" value={mode.secret} />
      ) : (
        <Box flexDirection="column" height={pageSize}>
          {lines.map((line) => (
            <Text key={line} wrap="truncate">
              {line}
            </Text>
          ))}
        </Box>
      )}
      {mode.kind === "confirm" ? (
        <Confirm
          question={
            mode.action === "rotate"
              ? "Rotate the signing secret? Receivers must switch within 24 h."
              : mode.action === "redeliver"
                ? `Redeliver ${typeof stats === "object" ? stats.dead_lettered : 0} dead-lettered deliveries?`
                : webhook?.active
                  ? `Pause "${webhook.name}"? Deliveries stop.`
                  : `Resume "${webhook?.name ?? id}"? Deliveries start again.`
          }
        />
      ) : (
        <Status at={polled.at} error={polled.error} note={note} />
      )}
      <HelpLine
        keys={[
          ["Esc", "back"],
          ["a", webhook?.active === false ? "resume" : "pause"],
          ["S", "rotate secret"],
          ["d", "redeliver"],
          ["[ ]", "addresses"],
          ["1-5", "screens"],
          ["q", "quit"],
        ]}
      />
    </Box>
  );
};
