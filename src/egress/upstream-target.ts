import { lookup } from "node:dns/promises";
import { checkServerIdentity } from "node:tls";
import { addressAllowed, hostNameAllowed, isIpLiteral, type AllowedHosts } from "./allowed-hosts";

const ALLOW_HINT = "the operator can allow it with --allow-upstream-hosts";

/**
 * The checks a workspace's upstream_url passes when it is set (PATCH /api/workspace): an
 * http(s) URL without credentials or fragment whose host, when it is an address or
 * `localhost`, is allowed. Host names are resolved and checked again on every connection
 * (pinnedUpstream), because DNS answers change.
 */
export function upstreamUrlProblem(raw: string, allowed: AllowedHosts): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an http(s) URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http(s) URL";
  if (url.username || url.password) return "must not contain credentials (send the provider key in Authorization)";
  if (raw.includes("#")) return "must not contain a fragment";
  if (url.search) return "must not contain a query string";
  const host = url.hostname;
  if (hostNameAllowed(allowed, host)) return undefined;
  if (isIpLiteral(host)) return addressAllowed(allowed, host) ? undefined : `${host} is not a public address; ${ALLOW_HINT}`;
  // localhost names are loopback by definition (RFC 6761): refused now unless loopback is allowed.
  if (/(^|\.)localhost\.?$/i.test(host) && !addressAllowed(allowed, "127.0.0.1")) return `${host} is not a public host; ${ALLOW_HINT}`;
  return undefined;
}

export class UpstreamTargetRefused extends Error {}

/** The workspace's upstream host name has no address: a wrong URL, not a disallowed one. */
export class UpstreamHostUnresolved extends Error {}

/** How to reach an upstream: the URL to fetch and what makes it reach the checked address only. */
export type PinnedUpstream = { url: string; headers: Record<string, string>; tls?: { serverName: string; checkServerIdentity: typeof checkServerIdentity } };

/**
 * Resolves a workspace's upstream host, checks every address it resolves to, and returns a
 * request aimed at the checked address itself (Host header and TLS server name keep the
 * original name), so a second DNS answer cannot swap in an internal address (DNS rebinding).
 */
export async function pinnedUpstream(target: string, allowed: AllowedHosts): Promise<PinnedUpstream> {
  const url = new URL(target);
  const host = url.hostname;
  if (hostNameAllowed(allowed, host)) return { url: target, headers: {} };
  const bare = host.replace(/^\[(.*)\]$/, "$1");
  let addresses: string[];
  if (isIpLiteral(host)) addresses = [bare];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
    } catch {
      throw new UpstreamHostUnresolved(`the workspace's upstream host ${host} does not resolve: check the host name in its upstream_url (PATCH /api/workspace)`);
    }
  }
  const refused = addresses.find((address) => !addressAllowed(allowed, address));
  if (refused !== undefined || addresses.length === 0) {
    throw new UpstreamTargetRefused(`the workspace's upstream host ${host} resolves to a non-public address; ${ALLOW_HINT}`);
  }
  const address = addresses[0]!;
  const pinned = new URL(target);
  pinned.hostname = address.includes(":") ? `[${address}]` : address;
  const tls = url.protocol === "https:" && !isIpLiteral(host) ? { serverName: host, checkServerIdentity: (_: string, cert: Parameters<typeof checkServerIdentity>[1]) => checkServerIdentity(host, cert) } : undefined;
  return { url: pinned.toString().replace(/\/$/, ""), headers: { host: url.host }, tls };
}
