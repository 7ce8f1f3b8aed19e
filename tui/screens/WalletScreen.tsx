import { Box, Text } from "ink";
import { HelpLine } from "../components/HelpLine.js";
import { Prompt } from "../components/Prompt.js";
import { Status } from "../components/Status.js";
import { Table } from "../components/Table.js";
import { useKeys } from "../hooks/use-keys.js";
import { useLock } from "../hooks/use-lock.js";
import { usePoll } from "../hooks/use-poll.js";
import { useViewState } from "../hooks/use-view-state.js";
import { editLine } from "../lineEdit.js";
import { OPERATOR_TEAM } from "../operatorKey.js";
import { balanceCells, positionCells, usd } from "../walletRows.js";
import type { ScreenProps } from "./ScreenProps.js";

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

interface View {
  /** Text being typed into the address prompt. */
  readonly typing: string | undefined;
  readonly address: string | undefined;
  /** Why the typed text was refused. */
  readonly refused: string | undefined;
  readonly balanceStart: number;
  readonly positionStart: number;
}

const INITIAL: View = {
  typing: undefined,
  address: undefined,
  refused: undefined,
  balanceStart: 0,
  positionStart: 0,
};

const BALANCE_COLUMNS = [
  { header: "CHAIN", shrink: true, min: 5 },
  { header: "TOKEN", shrink: true, min: 6 },
  { header: "AMOUNT", align: "right" as const },
  { header: "PRICE", align: "right" as const },
  { header: "USD", align: "right" as const },
];
const POSITION_COLUMNS = [
  { header: "CHAIN", shrink: true, min: 5 },
  { header: "TYPE", shrink: true, min: 5 },
  { header: "PROTOCOL", shrink: true, min: 6 },
  { header: "ASSETS", shrink: true, min: 8 },
  { header: "USD", align: "right" as const },
];

/**
 * Support work: type a wallet address (/) and see its balances and DeFi
 * positions on every chain that serves them, read through the API's own
 * subjects and charged to the operator team. A lookup costs CU, so it runs on
 * ⏎ and on r, never by itself.
 */
export const WalletScreen = ({ client, width, height, onLock }: ScreenProps) => {
  const [view, update, current] = useViewState(INITIAL);
  useLock(onLock, view.typing !== undefined);
  const address = view.address;
  const looked = usePoll(
    () => (address === undefined ? Promise.resolve(undefined) : client.lookupWallet(address)),
    // Refreshed on demand only (r): an interval this long never comes in practice.
    { intervalMs: 24 * 3_600_000, deps: [address] },
  );
  const wallet = looked.value?.address === address ? looked.value : undefined;

  // Lines: title, problems, two table headers, positions title, status and help; the rest is rows.
  const rowsBudget = Math.max(4, height - 7);
  const balanceRows = Math.max(2, Math.ceil(rowsBudget * 0.55));
  const positionRows = Math.max(2, rowsBudget - balanceRows);
  const balances = balanceCells(wallet?.balances?.balances ?? []);
  const positions = positionCells(wallet?.positions?.positions ?? [], wallet?.chainNames ?? new Map());

  const scroll = (field: "balanceStart" | "positionStart", by: number, total: number, rows: number) =>
    update((v) => ({ [field]: Math.max(0, Math.min(v[field] + by, Math.max(0, total - rows))) }));

  useKeys((input, key) => {
    const { typing } = current.current;
    if (typing !== undefined) {
      const edit = editLine(typing, input, key);
      if (edit.kind === "cancel") update({ typing: undefined });
      else if (edit.kind === "edit") update({ typing: edit.value });
      else if (ADDRESS.test(edit.value.trim()))
        update({
          typing: undefined,
          refused: undefined,
          address: edit.value.trim().toLowerCase(),
          balanceStart: 0,
          positionStart: 0,
        });
      else update({ typing: undefined, refused: "not an address: 0x followed by 40 hex digits" });
      return;
    }
    if (input === "/" || input === "a") {
      onLock(true);
      update({ typing: "" });
    } else if (input === "r") looked.refresh();
    else if (key.upArrow || input === "k") scroll("balanceStart", -1, balances.length, balanceRows);
    else if (key.downArrow || input === "j") scroll("balanceStart", 1, balances.length, balanceRows);
    else if (key.pageUp) scroll("positionStart", -positionRows, positions.length, positionRows);
    else if (key.pageDown) scroll("positionStart", positionRows, positions.length, positionRows);
  });

  const loading = address !== undefined && wallet === undefined && looked.error === undefined;
  const problems = [...(view.refused === undefined ? [] : [view.refused]), ...(wallet?.problems ?? [])];
  return (
    <Box flexDirection="column">
      <Text wrap="truncate">
        <Text bold>Wallet</Text>
        <Text dimColor>
          {address === undefined
            ? " · press / to look up an address on every chain"
            : ` ${address}${loading ? " · reading…" : ""}`}
        </Text>
      </Text>
      <Text
        wrap="truncate"
        dimColor={problems.length === 0}
        {...(problems.length > 0 ? { color: "red" } : {})}
      >
        {problems.length > 0
          ? problems.join(" · ")
          : wallet === undefined
            ? " "
            : `balances $${usd(wallet.balances?.balances.reduce((s, b) => s + (b.value_usd ?? 0), 0))} · positions $${usd(wallet.positions?.aggregations.total_usd_value)} · ${wallet.cu} CU to team ${OPERATOR_TEAM}`}
      </Text>
      <Table
        columns={BALANCE_COLUMNS}
        rows={balances.slice(view.balanceStart, view.balanceStart + balanceRows)}
        width={width}
        empty={wallet === undefined ? "" : "(no balances)"}
      />
      <Text bold wrap="truncate">
        Positions{" "}
        <Text dimColor>
          {positions.length === 0
            ? ""
            : `${view.positionStart + 1}-${Math.min(positions.length, view.positionStart + positionRows)} of ${positions.length} · balances ${balances.length === 0 ? 0 : view.balanceStart + 1}-${Math.min(balances.length, view.balanceStart + balanceRows)} of ${balances.length}`}
        </Text>
      </Text>
      <Table
        columns={POSITION_COLUMNS}
        rows={positions.slice(view.positionStart, view.positionStart + positionRows)}
        width={width}
        empty={wallet === undefined ? "" : "(no positions)"}
      />
      {view.typing === undefined ? (
        <Status at={address === undefined ? new Date() : looked.at} error={looked.error} />
      ) : (
        <Prompt label="wallet address" value={view.typing} />
      )}
      <HelpLine
        keys={
          view.typing === undefined
            ? [
                ["/", "address"],
                ["r", "refresh"],
                ["↑↓", "balances"],
                ["PgUp/PgDn", "positions"],
                ["1-5", "screens"],
                ["q", "quit"],
              ]
            : [
                ["⏎", "look up"],
                ["Esc", "cancel"],
              ]
        }
      />
    </Box>
  );
};
