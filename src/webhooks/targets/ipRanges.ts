/**
 * IP address parsing and classification for SSRF checks: which addresses a
 * webhook may target. Pure: no DNS, no I/O. Registration checks literal IPs in
 * URLs with it; the delivery worker checks every resolved address with it
 * before dialling (which closes DNS rebinding).
 *
 * IPv6 encodings of IPv4 addresses (IPv4-mapped `::ffff:0:0/96`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`, IPv4-compatible `::/96`) are unwrapped and
 * judged as the IPv4 address they carry, so `[::ffff:127.0.0.1]` is loopback.
 */

/** Why an address may or may not be targeted. Only `public` is reachable without an allow-list entry. */
export type IpCategory =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "sharedAddressSpace"
  | "linkLocal"
  | "metadata"
  | "uniqueLocal"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "reserved";

/** A parsed address: 4 bytes for IPv4, 16 for IPv6. */
export interface IpAddress {
  readonly version: 4 | 6;
  readonly bytes: ReadonlyArray<number>;
}

/** An address range: the first `prefix` bits of `base`. */
export interface IpRange {
  readonly base: IpAddress;
  readonly prefix: number;
}

const DECIMAL_OCTET = /^(0|[1-9]\d{0,2})$/;

/** Strict dotted-quad IPv4 (no octal, hex or short forms: the URL parser already canonicalises those). */
export const parseIpv4 = (text: string): IpAddress | undefined => {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes: Array<number> = [];
  for (const part of parts) {
    if (!DECIMAL_OCTET.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes.push(value);
  }
  return { version: 4, bytes };
};

const HEX_GROUP = /^[0-9a-f]{1,4}$/;

const parseGroups = (text: string): Array<number> | undefined => {
  if (text === "") return [];
  const groups: Array<number> = [];
  const parts = text.split(":");
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i === parts.length - 1 && part.includes(".")) {
      const v4 = parseIpv4(part);
      if (v4 === undefined) return undefined;
      groups.push((v4.bytes[0]! << 8) | v4.bytes[1]!, (v4.bytes[2]! << 8) | v4.bytes[3]!);
      continue;
    }
    if (!HEX_GROUP.test(part)) return undefined;
    groups.push(Number.parseInt(part, 16));
  }
  return groups;
};

/** IPv6 in any RFC 4291 text form, with or without brackets; a zone (`%eth0`) is ignored. */
export const parseIpv6 = (input: string): IpAddress | undefined => {
  let text = input.toLowerCase();
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1);
  const zone = text.indexOf("%");
  if (zone !== -1) text = text.slice(0, zone);
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const head = parseGroups(halves[0]!);
  const tail = halves.length === 2 ? parseGroups(halves[1]!) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...Array.from({ length: missing }, () => 0), ...tail];
  return { version: 6, bytes: groups.flatMap((g) => [g >> 8, g & 0xff]) };
};

/** An IPv4 or IPv6 address in text form, or `undefined` when the text is not one. */
export const parseIp = (text: string): IpAddress | undefined =>
  text.includes(":") ? parseIpv6(text) : parseIpv4(text);

/** A range in CIDR notation (`10.0.0.0/8`, `fc00::/7`); a bare address is a single-address range. */
export const parseCidr = (text: string): IpRange | undefined => {
  const slash = text.indexOf("/");
  const base = parseIp(slash === -1 ? text : text.slice(0, slash));
  if (base === undefined) return undefined;
  const max = base.version === 4 ? 32 : 128;
  if (slash === -1) return { base, prefix: max };
  const bits = text.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return undefined;
  return { base, prefix: Number(bits) };
};

/** Whether `address` lies in `range` (same IP version only). */
export const inRange = (address: IpAddress, range: IpRange): boolean => {
  if (address.version !== range.base.version) return false;
  for (let bit = 0; bit < range.prefix; bit += 8) {
    const take = Math.min(8, range.prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    const i = bit / 8;
    if ((address.bytes[i]! & mask) !== (range.base.bytes[i]! & mask)) return false;
  }
  return true;
};

const table = (entries: ReadonlyArray<readonly [string, IpCategory]>) =>
  entries.map(([cidr, category]) => {
    const range = parseCidr(cidr);
    if (range === undefined) throw new Error(`bad built-in range ${cidr}`);
    return { range, category } as const;
  });

// First match wins, so single metadata addresses come before the ranges that contain them.
const IPV4_RANGES = table([
  ["0.0.0.0/32", "unspecified"],
  ["0.0.0.0/8", "reserved"],
  ["10.0.0.0/8", "private"],
  ["100.100.100.200/32", "metadata"], // Alibaba Cloud
  ["100.64.0.0/10", "sharedAddressSpace"], // carrier-grade NAT
  ["127.0.0.0/8", "loopback"],
  ["169.254.169.254/32", "metadata"], // AWS, GCP, Azure, OpenStack
  ["169.254.170.2/32", "metadata"], // AWS ECS task credentials
  ["169.254.0.0/16", "linkLocal"],
  ["172.16.0.0/12", "private"],
  ["192.0.0.0/24", "reserved"],
  ["192.0.2.0/24", "documentation"],
  ["192.88.99.0/24", "reserved"],
  ["192.168.0.0/16", "private"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["224.0.0.0/4", "multicast"],
  ["255.255.255.255/32", "broadcast"],
  ["240.0.0.0/4", "reserved"],
]);

const IPV6_RANGES = table([
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["64:ff9b:1::/48", "reserved"], // local-use NAT64
  ["100::/64", "reserved"], // discard prefix
  ["2001:db8::/32", "documentation"],
  ["2001:2::/48", "benchmarking"],
  ["2001::/23", "reserved"], // IETF protocol assignments, Teredo among them
  ["fd00:ec2::254/128", "metadata"], // AWS over IPv6
  ["fc00::/7", "uniqueLocal"],
  ["fe80::/10", "linkLocal"],
  ["fec0::/10", "reserved"], // deprecated site-local
  ["ff00::/8", "multicast"],
]);

const GLOBAL_UNICAST = parseCidr("2000::/3")!;

/** IPv6 forms that carry an IPv4 address, with the byte offset of that address. */
const EMBEDDED_IPV4 = [
  { range: parseCidr("::ffff:0:0/96")!, offset: 12 }, // IPv4-mapped
  { range: parseCidr("64:ff9b::/96")!, offset: 12 }, // NAT64
  { range: parseCidr("::/96")!, offset: 12 }, // IPv4-compatible (deprecated)
  { range: parseCidr("2002::/16")!, offset: 2 }, // 6to4
] as const;

/** The IPv4 address an IPv6 address carries (mapped, NAT64, compatible or 6to4), if any. */
export const embeddedIpv4 = (address: IpAddress): IpAddress | undefined => {
  if (address.version !== 6) return undefined;
  const isSpecial = (cidr: string) => inRange(address, parseCidr(cidr)!);
  if (isSpecial("::/127")) return undefined; // `::` and `::1` are themselves, not IPv4-compatible
  const match = EMBEDDED_IPV4.find(({ range }) => inRange(address, range));
  if (match === undefined) return undefined;
  return { version: 4, bytes: address.bytes.slice(match.offset, match.offset + 4) };
};

/** The category of a parsed address. IPv6 outside 2000::/3 and the listed ranges is `reserved`. */
export const categoryOf = (address: IpAddress): IpCategory => {
  const inner = embeddedIpv4(address);
  if (inner !== undefined) return categoryOf(inner);
  const ranges = address.version === 4 ? IPV4_RANGES : IPV6_RANGES;
  const hit = ranges.find(({ range }) => inRange(address, range));
  if (hit !== undefined) return hit.category;
  if (address.version === 6 && !inRange(address, GLOBAL_UNICAST)) return "reserved";
  return "public";
};

/** The category of an address in text form, or `undefined` when the text is not an IP address. */
export const classifyIp = (text: string): IpCategory | undefined => {
  const address = parseIp(text);
  return address === undefined ? undefined : categoryOf(address);
};

/** Whether a webhook may target this address without an allow-list entry. */
export const isPublicIp = (address: IpAddress): boolean => categoryOf(address) === "public";
