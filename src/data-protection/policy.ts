import { customDetector } from "./custom-pattern";
import type { Detector } from "./detector";
import { creditCardDetector } from "./detectors/credit-card";
import { emailDetector } from "./detectors/email";
import { ibanDetector } from "./detectors/iban";
import { ipAddressDetector } from "./detectors/ip-address";
import { DEFAULT_PHONE_REGIONS, phoneDetector } from "./detectors/phone";
import { secretDetector } from "./detectors/secrets";
import { usSsnDetector } from "./detectors/us-ssn";
import { BUILTIN_TYPES, DEFAULT_ACTIONS, type Action, type BuiltinType, type Detection, type Finding, type StoredPolicy } from "./model";

/** Each built-in type's detector, made for a policy (the phone detector reads the policy's regions). */
const BUILTIN_DETECTORS: Record<BuiltinType, (policy: EffectivePolicy) => Detector> = {
  secret: () => secretDetector,
  email: () => emailDetector,
  phone: (policy) => phoneDetector(policy.phone_regions),
  credit_card: () => creditCardDetector,
  iban: () => ibanDetector,
  ip_address: () => ipAddressDetector,
  us_ssn: () => usSsnDetector,
};

/**
 * Which finding wins where two overlap: secrets first (a key inside a URL is a secret, not an
 * address), then the checksum-validated types, then the looser ones; custom patterns after the
 * built-ins. Ties go to the longer finding, then the earlier one.
 */
const PRIORITY: Record<string, number> = { secret: 0, credit_card: 1, iban: 2, us_ssn: 3, email: 4, phone: 5, ip_address: 6 };
const CUSTOM_PRIORITY = 7;

/** A workspace's policy made ready to scan: the detectors whose action is not "off", with their actions. */
export type CompiledPolicy = { detectors: Detector[]; actions: Map<string, Exclude<Action, "off">> };

export const EMPTY_POLICY: StoredPolicy = { actions: {}, custom: [] };

export type EffectivePolicy = { actions: Record<BuiltinType, Action>; custom: StoredPolicy["custom"]; phone_regions: string[]; redact_documents: boolean };

/** The action of every built-in type, the custom patterns and the settings, defaults filled in. */
export function effectivePolicy(stored: StoredPolicy | null | undefined): EffectivePolicy {
  return {
    actions: { ...DEFAULT_ACTIONS, ...(stored?.actions ?? {}) },
    custom: stored?.custom ?? [],
    phone_regions: stored?.phone_regions ?? DEFAULT_PHONE_REGIONS,
    redact_documents: stored?.redact_documents ?? false,
  };
}

const compiled = new Map<string, CompiledPolicy>();
const MAX_COMPILED = 1000;

/** Compiles a stored policy, memoised by its content (custom regexes are compiled once, not per request). */
export function compilePolicy(stored: StoredPolicy | null | undefined): CompiledPolicy {
  const key = stored ? JSON.stringify(stored) : "";
  let policy = compiled.get(key);
  if (policy) return policy;
  const effective = effectivePolicy(stored);
  const { actions, custom } = effective;
  policy = { detectors: [], actions: new Map() };
  for (const type of BUILTIN_TYPES) {
    const action = actions[type];
    if (action === "off") continue;
    policy.detectors.push(BUILTIN_DETECTORS[type](effective));
    policy.actions.set(type, action);
  }
  for (const pattern of custom) {
    if (pattern.action === "off") continue;
    policy.detectors.push(customDetector(pattern));
    policy.actions.set(pattern.name, pattern.action);
  }
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(key, policy);
  return policy;
}

/** Runs every detector of the policy over one text; overlapping detections are resolved to one. */
export async function scanText(text: string, policy: CompiledPolicy): Promise<Finding[]> {
  if (text.length === 0 || policy.detectors.length === 0) return [];
  const detections: Detection[] = [];
  if (text.length <= SCAN_PIECE_CHARS + SCAN_OVERLAP_CHARS) {
    for (const detector of policy.detectors) detections.push(...(await detector.detect(text)));
  } else {
    // A long text is read in pieces with the event loop given a turn between them (a 10 MB
    // prompt is seconds of detection: no other request may wait behind all of it). Each piece
    // owns the entities that start in it; its overlap sees an entity that crosses into the next
    // one whole (the longest, a PEM private key, is ~3.3 KB).
    for (let start = 0; start < text.length; start += SCAN_PIECE_CHARS) {
      if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const piece = text.slice(start, start + SCAN_PIECE_CHARS + SCAN_OVERLAP_CHARS);
      for (const detector of policy.detectors) {
        for (const d of await detector.detect(piece)) if (d.start < SCAN_PIECE_CHARS) detections.push({ ...d, start: d.start + start, end: d.end + start });
      }
    }
  }
  return resolveOverlaps(detections).map((d) => ({ ...d, action: policy.actions.get(d.type)! }));
}

/** Characters of one text scanned at a time (~20 ms with every detector on), and how far each piece reads on. */
const SCAN_PIECE_CHARS = 64 * 1024;
const SCAN_OVERLAP_CHARS = 8 * 1024;

function resolveOverlaps(detections: Detection[]): Detection[] {
  if (detections.length < 2) return detections;
  const rank = (d: Detection) => PRIORITY[d.type] ?? CUSTOM_PRIORITY;
  const byStart = [...detections].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Detection[] = [];
  // Overlapping detections form clusters (a sweep, linear); the priority order is applied within each.
  for (let i = 0; i < byStart.length; ) {
    let clusterEnd = byStart[i]!.end;
    let j = i + 1;
    while (j < byStart.length && byStart[j]!.start < clusterEnd) clusterEnd = Math.max(clusterEnd, byStart[j++]!.end);
    const cluster = byStart.slice(i, j).sort((a, b) => rank(a) - rank(b) || b.end - b.start - (a.end - a.start) || a.start - b.start || a.type.localeCompare(b.type));
    const chosen: Detection[] = [];
    for (const candidate of cluster) if (!chosen.some((k) => candidate.start < k.end && k.start < candidate.end)) chosen.push(candidate);
    kept.push(...chosen.sort((a, b) => a.start - b.start));
    i = j;
  }
  return kept;
}
