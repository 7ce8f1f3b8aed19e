import { embeddedIpv4, type IpRange, inRange, parseCidr, parseIp } from "./ipRanges.js";

/**
 * Targets an operator lets webhooks reach although they are not public
 * (`WEBHOOK_ALLOWED_HOSTS`): exact host names (`localhost`, `hooks.internal`),
 * IP addresses and CIDR ranges (`10.20.0.0/16`, `fd00::/8`).
 */
export interface HostAllowList {
  readonly names: ReadonlySet<string>;
  readonly ranges: ReadonlyArray<IpRange>;
}

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Lower case, without IPv6 brackets or a trailing root dot, as URL host names are compared. */
export const normaliseHost = (host: string): string => {
  const lower = host.trim().toLowerCase();
  const unbracketed = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith(".") ? unbracketed.slice(0, -1) : unbracketed;
};

/** One allow-list entry, or `undefined` when it is neither a host name, an IP address nor a CIDR range. */
export const parseAllowEntry = (raw: string): { name: string } | { range: IpRange } | undefined => {
  const entry = normaliseHost(raw);
  const range = parseCidr(entry);
  if (range !== undefined) return { range };
  return HOST_NAME.test(entry) ? { name: entry } : undefined;
};

/** Builds the allow-list from already validated entries (see AppConfig); invalid ones are skipped. */
export const makeHostAllowList = (entries: ReadonlyArray<string>): HostAllowList => {
  const names = new Set<string>();
  const ranges: Array<IpRange> = [];
  for (const raw of entries) {
    const entry = parseAllowEntry(raw);
    if (entry === undefined) continue;
    if ("name" in entry) names.add(entry.name);
    else ranges.push(entry.range);
  }
  return { names, ranges };
};

/** Whether a URL host (name or IP literal) is allow-listed; an IPv6 form of an IPv4 address matches IPv4 entries. */
export const isAllowedHost = (list: HostAllowList, host: string): boolean => {
  const normalised = normaliseHost(host);
  if (list.names.has(normalised)) return true;
  const address = parseIp(normalised);
  if (address === undefined) return false;
  const inner = embeddedIpv4(address);
  return list.ranges.some(
    (range) => inRange(address, range) || (inner !== undefined && inRange(inner, range)),
  );
};
