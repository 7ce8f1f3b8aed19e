import { readFile, writeFile } from "node:fs/promises";

/**
 * The team the operator UI's wallet lookups are charged to. Support lookups
 * must not count against a customer's usage or quota, and their cost should
 * still be visible: they go through the same subjects and metering as any
 * client, under this team of the operator's own (in the Usage and Keys screens).
 */
export const OPERATOR_TEAM = "operator";

/**
 * The operator team's API key for this TUI: read from `file` (kept by an
 * earlier run), else created through the admin subject and written there
 * (mode 600), so runs reuse one key instead of leaving one behind each. Without
 * a file (tests) it lives in memory. `renew` replaces a key the service no
 * longer accepts (revoked from the Keys screen, unknown to a new deployment).
 */
export const makeOperatorKey = (create: () => Promise<string>, file: string | undefined) => {
  let current: Promise<string> | undefined;
  const fresh = async () => {
    const key = await create();
    if (file !== undefined) await writeFile(file, `${key}\n`, { mode: 0o600 }).catch(() => undefined);
    return key;
  };
  const load = async () => {
    const kept =
      file === undefined
        ? ""
        : await readFile(file, "utf8").then(
            (s) => s.trim(),
            () => "",
          );
    return kept.startsWith("svc_") ? kept : fresh();
  };
  const remember = (pending: Promise<string>) => {
    current = pending.catch((error: unknown) => {
      current = undefined;
      throw error;
    });
    return current;
  };
  return {
    get: (): Promise<string> => current ?? remember(load()),
    renew: (): Promise<string> => remember(fresh()),
  };
};

export type OperatorKey = ReturnType<typeof makeOperatorKey>;
