import ipaddr from "ipaddr.js";
import type { Detector } from "../detector";
import type { Detection } from "../model";

/** Four dotted numbers that are not part of a longer dotted run (a version number like 1.2.3.4.5). */
const IPV4 = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)/g;
/** Hex groups with colons: at least three groups, or a "::" abbreviation. */
const IPV6 = /(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?![\w:])/g;
/** Words that make a dotted number a version, not an address (firmware and builds are numbered in four parts too). */
const VERSION_BEFORE = /\b(?:v|version|versi[oó]ne?|vers[aã]o|wersja|release|build|firmware|fw|rev(?:ision)?|patch|ver\.?)\s*[:#]?\s*$/i;

/** IPv4 and IPv6 addresses as ipaddr.js parses them (in their standard notations only). */
export const ipAddressDetector: Detector = {
  type: "ip_address",
  detect(text) {
    const found: Detection[] = [];
    for (const match of text.matchAll(IPV4)) {
      if (!ipaddr.IPv4.isValidFourPartDecimal(match[0])) continue;
      if (VERSION_BEFORE.test(text.slice(Math.max(0, match.index - 16), match.index))) continue;
      found.push({ type: "ip_address", start: match.index, end: match.index + match[0].length });
    }
    for (const match of text.matchAll(IPV6)) {
      const candidate = match[0];
      // A time of day (12:30:45) or a MAC address is not an IPv6 address; "::" alone says nothing.
      if (!candidate.includes("::") && candidate.split(":").length < 8) continue;
      if ((candidate.match(/[0-9A-Fa-f]/g) ?? []).length < 2) continue;
      if (!ipaddr.IPv6.isValid(candidate)) continue;
      found.push({ type: "ip_address", start: match.index, end: match.index + candidate.length });
    }
    return found;
  },
};
