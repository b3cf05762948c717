import ipaddr from "ipaddr.js";

/**
 * Where a workspace's own upstream_url may point. By default only public unicast addresses
 * (ipaddr.js's range "unicast": not loopback, private, link-local, unique-local, multicast,
 * carrier-grade NAT, reserved or an IPv4 address embedded in IPv6). The operator widens it with
 * --allow-upstream-hosts: host names (exact, or `*.suffix`), addresses, CIDR ranges, or `*`.
 */
export type AllowedHosts = {
  any: boolean;
  names: Set<string>;
  suffixes: string[];
  ranges: [ipaddr.IPv4 | ipaddr.IPv6, number][];
};

const HOST_NAME = /^(?=.{1,253}$)([a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/i;

const entries = (raw: string) =>
  raw
    .split(",")
    .map((entry) => entry.trim().toLowerCase())
    .filter(Boolean);

/** The first entry of an --allow-upstream-hosts value that means nothing, as a message. */
export function invalidAllowedHostEntry(raw: string): string | undefined {
  for (const entry of entries(raw)) {
    if (entry === "*" || toRange(entry) || HOST_NAME.test(entry.replace(/^\*\./, ""))) continue;
    return `"${entry}" is not a host name, *.suffix, IP address, CIDR range or *`;
  }
  return undefined;
}

export function parseAllowedHosts(raw: string): AllowedHosts {
  const allowed: AllowedHosts = { any: false, names: new Set(), suffixes: [], ranges: [] };
  for (const entry of entries(raw)) {
    const range = toRange(entry);
    if (entry === "*") allowed.any = true;
    else if (range) allowed.ranges.push(range);
    else if (entry.startsWith("*.")) allowed.suffixes.push(entry.slice(1));
    else allowed.names.add(entry);
  }
  return allowed;
}

function toRange(entry: string): [ipaddr.IPv4 | ipaddr.IPv6, number] | undefined {
  const bare = entry.replace(/^\[(.*)\]$/, "$1");
  if (ipaddr.isValidCIDR(bare)) return ipaddr.parseCIDR(bare);
  if (ipaddr.isValid(bare)) {
    const address = ipaddr.process(bare);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  }
  return undefined;
}

/** A host name the operator listed: its addresses are trusted whatever they are. */
export function hostNameAllowed(allowed: AllowedHosts, hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return allowed.any || allowed.names.has(name) || allowed.suffixes.some((suffix) => name.endsWith(suffix));
}

/** Whether Sieve may connect to this address for a workspace: public, or inside a listed range. */
export function addressAllowed(allowed: AllowedHosts, address: string): boolean {
  if (allowed.any) return true;
  // process(): an IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as the IPv4 address it is.
  const parsed = ipaddr.process(address.replace(/^\[(.*)\]$/, "$1"));
  if (parsed.range() === "unicast") return true;
  return allowed.ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits));
}

export const isIpLiteral = (hostname: string) => ipaddr.isValid(hostname.replace(/^\[(.*)\]$/, "$1"));
