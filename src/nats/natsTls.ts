import { accessSync, constants, readFileSync } from "node:fs";

/** TLS material for connections to NATS: PEM files on this machine (NATS_TLS_CA, NATS_TLS_CERT, NATS_TLS_KEY). */
export interface NatsTls {
  /** CA that signed the servers' certificates; unset trusts the system's CAs. */
  readonly caFile?: string;
  /** Client certificate and its key, for servers that verify clients (both or neither). */
  readonly certFile?: string;
  readonly keyFile?: string;
}

const PEM = /-----BEGIN [A-Z0-9 ]+-----/;

/** Why a PEM file named by `variable` cannot be used, or `undefined` when it can. */
const pemProblem = (variable: string, path: string): string | undefined => {
  try {
    accessSync(path, constants.R_OK);
  } catch {
    return `${variable} must name a readable PEM file (got "${path}", which does not exist or cannot be read).`;
  }
  // Read only the start: enough to tell a PEM file from a wrong path (a directory, a DER file, a key store).
  const head = readFileSync(path, { encoding: "utf8", flag: "r" }).slice(0, 4096);
  return PEM.test(head)
    ? undefined
    : `${variable} must name a PEM file (got "${path}", which holds no PEM block).`;
};

/**
 * Checks the NATS_TLS_* settings at start-up so a wrong path is named at once,
 * not as a handshake failure later. Answers the settings or the problems found.
 */
export const parseNatsTls = (values: {
  readonly ca: string | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
}): { readonly tls: NatsTls | undefined } | { readonly problems: ReadonlyArray<string> } => {
  const problems: Array<string> = [];
  if ((values.cert === undefined) !== (values.key === undefined))
    problems.push(
      "NATS_TLS_CERT and NATS_TLS_KEY must be set together (a client certificate needs its key).",
    );
  for (const [variable, path] of [
    ["NATS_TLS_CA", values.ca],
    ["NATS_TLS_CERT", values.cert],
    ["NATS_TLS_KEY", values.key],
  ] as const) {
    const problem = path === undefined ? undefined : pemProblem(variable, path);
    if (problem !== undefined) problems.push(problem);
  }
  if (problems.length > 0) return { problems };
  if (values.ca === undefined && values.cert === undefined) return { tls: undefined };
  return {
    tls: {
      ...(values.ca === undefined ? {} : { caFile: values.ca }),
      ...(values.cert === undefined || values.key === undefined
        ? {}
        : { certFile: values.cert, keyFile: values.key }),
    },
  };
};
