import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { type HostAllowList, isAllowedHost, normaliseHost } from "./hostAllowList.js";
import { isPublicIp, parseIp } from "./ipRanges.js";

/**
 * Send-time SSRF checks (the registration check in urlPolicy.ts cannot see DNS).
 * An address may be dialled when it is public, when it lies in an allow-listed
 * range, or when the URL's host name itself is allow-listed (`localhost`,
 * `hooks.internal`). The same rule is applied to every address DNS returns
 * (blocked ones are dropped before the connector sees them) and again to the
 * address the socket actually connected to, so no rebinding window exists.
 */
export const mayDial = (allowed: HostAllowList, host: string, ip: string): boolean => {
  const address = parseIp(ip);
  if (address === undefined) return false;
  return isPublicIp(address) || allowed.names.has(normaliseHost(host)) || isAllowedHost(allowed, ip);
};

/** The error of a blocked target; its message names the address but never the URL's path or query. */
export class BlockedTargetError extends Error {
  constructor(host: string, ip: string | undefined) {
    super(
      ip === undefined
        ? `${host} resolves to no address a webhook may reach`
        : `${host} (${ip}) is not an address a webhook may reach`,
    );
    this.name = "BlockedTargetError";
  }
}

/**
 * A `lookup` for net/tls connect that resolves with the system resolver and
 * hands back only the addresses `mayDial` admits (all of them when asked for
 * all, else the first), failing with BlockedTargetError when none is left.
 */
export const guardedLookup =
  (allowed: HostAllowList): LookupFunction =>
  (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
      if (error !== null) return callback(error, "", 0);
      const usable = (addresses as ReadonlyArray<LookupAddress>).filter((a) =>
        mayDial(allowed, hostname, a.address),
      );
      const first = usable[0];
      if (first === undefined) {
        const blocked = new BlockedTargetError(
          hostname,
          (addresses as ReadonlyArray<LookupAddress>)[0]?.address,
        );
        return callback(Object.assign(blocked, { code: "EBLOCKED" }), "", 0);
      }
      if (options.all === true)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
      return callback(null, first.address, first.family);
    });
  };
