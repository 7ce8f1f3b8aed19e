/**
 * What one endpoint was found to answer, measured by probing it (probeNode.ts), never assumed.
 * `undefined` fields are not known yet (not probed, or the probe itself failed).
 */
export interface NodeCapabilities {
  /** The chain id the endpoint reported. */
  readonly chainId?: number;
  /** The endpoint's head when probed. */
  readonly head?: number;
  /** Oldest block whose state eth_call can read (0 on an archive node). */
  readonly stateFrom?: number;
  /** Oldest block whose logs and receipts it serves. */
  readonly logsFrom?: number;
  /** Whether it serves eth_getBlockReceipts. */
  readonly blockReceipts?: boolean;
  /** Whether it serves debug_traceBlockByHash with the callTracer (internal native transfers). */
  readonly traces?: boolean;
  /** When the last probe finished (ms since the epoch). */
  readonly probedAt?: number;
}

/** The union of what a chain's endpoints can answer: what some endpoint serves, the chain serves. */
export interface ChainCapabilities {
  readonly stateFrom?: number;
  readonly logsFrom?: number;
  readonly blockReceipts?: boolean;
  readonly traces?: boolean;
  /** Whether every endpoint has been probed at least once (else the fields may still grow). */
  readonly complete: boolean;
}

const least = (values: ReadonlyArray<number | undefined>): number | undefined => {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : Math.min(...known);
};

const any = (values: ReadonlyArray<boolean | undefined>): boolean | undefined =>
  values.some((value) => value === true)
    ? true
    : values.every((value) => value === false)
      ? false
      : undefined;

export const chainCapabilities = (
  endpoints: ReadonlyArray<NodeCapabilities | undefined>,
): ChainCapabilities => ({
  ...optional("stateFrom", least(endpoints.map((e) => e?.stateFrom))),
  ...optional("logsFrom", least(endpoints.map((e) => e?.logsFrom))),
  ...optional("blockReceipts", any(endpoints.map((e) => e?.blockReceipts))),
  ...optional("traces", any(endpoints.map((e) => e?.traces))),
  complete: endpoints.every((e) => e?.probedAt !== undefined),
});

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
