import type { ChainConfig } from "../chains/ChainsConfig.js";
import type { Warning } from "../contracts/Common.js";
import type { DiscoveryProgress } from "./DiscoveryProgress.js";

const named = (chain: ChainConfig) => `${chain.name} (${chain.chain_id})`;

/**
 * Where the wallet's transfer-history scan stands, in words: not begun, how much of it is read
 * (newest first), or read with its finds being recorded; and whether it waits for its turn.
 */
const scanWhere = (progress: DiscoveryProgress): string => {
  const scan = progress.scan;
  const queued = progress.scan_queued === true;
  const waits = "its transfer history waits for its turn to be read, behind other wallets' scans";
  if (scan === undefined || scan.below > scan.to) {
    const span = scan === undefined ? "" : ` (blocks ${scan.from}-${scan.to})`;
    return queued ? `${waits}${span}` : `its transfer history is about to be read${span}`;
  }
  if (scan.below <= scan.from)
    return `its transfer history (blocks ${scan.from}-${scan.to}) is read and what it found is being recorded`;
  const share = Math.floor(((scan.to - scan.below + 1) / (scan.to - scan.from + 1)) * 100);
  const read = `blocks ${scan.below}-${scan.to} of ${scan.from}-${scan.to} read, ${share}%`;
  return queued ? `${waits} (${read})` : `its transfer history is being read, newest first (${read})`;
};

const running = (chain: ChainConfig, progress: DiscoveryProgress): string | undefined => {
  switch (progress.state) {
    case "not_started":
    case "sweeping":
      return `${named(chain)}: its tokens and positions are being found`;
    case "failed":
      return `${named(chain)}: finding its tokens failed (${progress.error ?? "unknown"}) and is tried again on a later request`;
    case "scanning":
    case "scan_failed":
      return `${named(chain)}: ${scanWhere(progress)}${progress.state === "scan_failed" ? ` (stopped: ${progress.error ?? "unknown"}; resumed on a later request)` : ""}`;
    default:
      return progress.registry === undefined
        ? undefined
        : `${named(chain)}: the pools and markets its registry created are read from block ${progress.registry.from} to ${progress.registry.to}, now at ${progress.registry.next}`;
  }
};

/**
 * The warnings of an answer read while the wallet's discovery on some chains had not finished,
 * or found a limit (docs/real-chains.md):
 * - `DISCOVERY_IN_PROGRESS` names each chain whose sweep or log scan is still running, and how far;
 * - `INCOMPLETE_HISTORY` names each chain whose nodes keep logs only from a block on, so a token
 *   outside the chain's token universe that the wallet got before it and never moved since is
 *   missing, and each finder that read less than there was (a cap).
 */
export const discoveryWarnings = (
  reads: ReadonlyArray<{ readonly chain: ChainConfig; readonly progress: DiscoveryProgress }>,
  logsFrom: (chainId: number) => number | undefined,
  what: string,
  publicUrl: string,
): ReadonlyArray<Warning> => {
  const warnings: Array<Warning> = [];
  const inProgress = reads
    .map(({ chain, progress }) => ({ chain, line: running(chain, progress) }))
    .filter((r): r is { chain: ChainConfig; line: string } => r.line !== undefined);
  if (inProgress.length > 0)
    warnings.push({
      code: "DISCOVERY_IN_PROGRESS",
      message: `${what} may be incomplete while this wallet is discovered on chains whose history the index does not hold: ${inProgress.map((r) => r.line).join("; ")}. Ask again shortly.`,
      chain_ids: inProgress.map((r) => r.chain.chain_id),
      docs_url: `${publicUrl}/v1/evm/supported-chains`,
    });
  const limited = reads
    .filter(({ progress }) => progress.state !== "not_needed")
    .map(({ chain, progress }) => {
      // Where the wallet's history is read down to: a finished scan's start (a pruned node's
      // window moves up after the scan read below it), else where the nodes' logs begin now, which
      // a scan still reading cannot go below.
      const scan = progress.scan;
      const nodes = logsFrom(chain.chain_id);
      // The index holds it all from the chain's first block (a scan of a gap it has filled since
      // included): the nodes' logs have nothing to add.
      const from =
        progress.history_indexed === true
          ? undefined
          : scan === undefined
            ? nodes
            : scan.below <= scan.from
              ? scan.from
              : Math.max(scan.from, nodes ?? scan.from);
      const parts = [
        ...(from !== undefined && from > 0
          ? [
              `its history is read from block ${from} only (the nodes keep no older logs), so a token outside its token universe acquired before that and never moved since is missing`,
            ]
          : []),
        ...(progress.truncated ?? []),
      ];
      return { chain, parts };
    })
    .filter((r) => r.parts.length > 0);
  if (limited.length > 0)
    warnings.push({
      code: "INCOMPLETE_HISTORY",
      message: `${what} may be incomplete: ${limited.map((r) => `${named(r.chain)}: ${r.parts.join("; ")}`).join(". ")}.`,
      chain_ids: limited.map((r) => r.chain.chain_id),
      docs_url: `${publicUrl}/v1/evm/supported-chains`,
    });
  return warnings;
};
