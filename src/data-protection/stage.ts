import type { DataProtectionMetrics, ProtectionSide } from "../metrics/data-protection";
import type { ProxiedRequest } from "../proxy/request";
import { ALLOW, type FirewallVerdict, type OutputMonitor } from "../proxy/stages";
import { scanJson, type LocatedFinding } from "./body-scan";
import type { Finding, StoredPolicy } from "./model";
import { Placeholders } from "./placeholders";
import { compilePolicy, scanText, type CompiledPolicy } from "./policy";
import { restoreJson, StreamRestorer } from "./restore";

/** One entity type's findings on one side of a request, as the evidence log records them: never a value. */
export type ProtectionRecord = { side: ProtectionSide; type: string; rule?: string; action: string; count: number; where: string[] };

/** How much answer text a streamed check looks back over, so an entity split across deltas is seen whole. */
const STREAM_OVERLAP_CHARS = 512;
/**
 * New answer text that triggers a streamed check, and the least a line end does. One check costs
 * a few milliseconds whatever its length (secretlint's rules run per call): checking every 256
 * characters made a 1 MiB answer take 28 s to relay.
 */
const STREAM_CHECK_CHARS = 4096;
const STREAM_CHECK_AT_LINE_END_CHARS = 512;
/**
 * Answer text checked on the way back: answers are bounded by --max-response-bytes (64 MiB), and
 * detecting in all of that is tens of seconds of CPU per answer. Past this, an answer is relayed
 * unchecked (docs/data-protection.md, *Limits*); requests are always checked whole.
 */
export const MAX_ANSWER_CHECK_CHARS = 1024 * 1024;

/**
 * The data protection of one proxied request: what its input held and how it was rewritten, the
 * placeholders to restore in the answer, and what the answer held.
 *
 * On the way back: `block` findings end the answer (403, or the stream's blocked event, like the
 * output firewall), `redact` findings are replaced by placeholders, `mask` and `log` findings are
 * recorded only (masking keeps values from the provider; a value the provider wrote itself has
 * nothing to hide from it). In streams a redact finding is replaced in what the cache and
 * evidence keep, not in the deltas already sent.
 */
export class RequestProtection {
  readonly findings: { side: ProtectionSide; finding: LocatedFinding }[] = [];
  readonly #policy: CompiledPolicy;
  readonly #placeholders: Placeholders;
  readonly #metrics: DataProtectionMetrics;

  constructor(policy: CompiledPolicy, placeholders: Placeholders, metrics: DataProtectionMetrics) {
    this.#policy = policy;
    this.#placeholders = placeholders;
    this.#metrics = metrics;
  }

  get masked(): ReadonlyMap<string, string> {
    return this.#placeholders.masked;
  }

  note(side: ProtectionSide, found: LocatedFinding[]): void {
    for (const finding of found) {
      this.findings.push({ side, finding });
      this.#metrics.record(side, finding.type, finding.action);
    }
  }

  /** Evidence: counts by side, type, rule and action, with up to ten places each. */
  records(): ProtectionRecord[] {
    const byKey = new Map<string, ProtectionRecord>();
    for (const { side, finding } of this.findings) {
      const key = `${side}|${finding.type}|${finding.rule ?? ""}|${finding.action}`;
      let record = byKey.get(key);
      if (!record) byKey.set(key, (record = { side, type: finding.type, ...(finding.rule ? { rule: finding.rule } : {}), action: finding.action, count: 0, where: [] }));
      record.count++;
      if (record.where.length < 10 && !record.where.includes(finding.where)) record.where.push(finding.where);
    }
    return [...byKey.values()];
  }

  /**
   * Checks a provider's JSON answer and replaces its redact (and block) findings in place: what
   * the cache and the evidence keep. Returns the first block finding and whether anything changed.
   */
  async checkAnswer(completion: Record<string, unknown>, answerChars: number): Promise<{ blocked: LocatedFinding | undefined; changed: boolean }> {
    if (answerChars > MAX_ANSWER_CHECK_CHARS) return { blocked: undefined, changed: false };
    const found = await scanJson(completion, this.#policy, this.#placeholders, replacedInAnswers);
    this.note("output", found);
    return { blocked: found.find((f) => f.action === "block"), changed: found.some(replacedInAnswers) };
  }

  /** The answer as the client receives it: masked values restored (a copy; the argument is what the provider sent). */
  forClient(completion: Record<string, unknown>): Record<string, unknown> {
    if (this.masked.size === 0) return completion;
    const copy = structuredClone(completion);
    restoreJson(copy, this.masked);
    return copy;
  }

  /** Rewrites a stream's events for the client, when there is anything to restore. */
  streamRestorer(): StreamRestorer | undefined {
    return this.masked.size ? new StreamRestorer(this.masked) : undefined;
  }

  /** Watches a streamed answer for block findings, in overlapping windows; combined with the firewall's monitor. */
  outputMonitor(firewall: OutputMonitor | undefined): OutputMonitor | undefined {
    if (![...this.#policy.actions.values()].includes("block")) return firewall;
    let checkedTo = 0;
    const check = async (text: string, from: number): Promise<FirewallVerdict> => {
      const start = Math.max(0, from - STREAM_OVERLAP_CHARS);
      const blocked = (await scanText(text.slice(start), this.#policy)).find((f) => f.action === "block" && f.end + start > from);
      checkedTo = text.length;
      if (!blocked) return ALLOW;
      // Recorded with the whole answer's findings when the stream ends (checkAnswer).
      return blockedVerdict({ ...blocked, where: "answer" });
    };
    return {
      inspect: async (added, soFar) => {
        const verdict = firewall ? await firewall.inspect(added, soFar) : ALLOW;
        if (verdict.action === "block" || checkedTo >= MAX_ANSWER_CHECK_CHARS) return verdict;
        const unchecked = soFar.length - checkedTo;
        if (unchecked < STREAM_CHECK_CHARS && !(added.includes("\n") && unchecked >= STREAM_CHECK_AT_LINE_END_CHARS)) return verdict;
        const own = await check(soFar, checkedTo);
        return own.action === "block" ? own : verdict;
      },
      finish: async (fullText) => {
        const verdict = firewall ? await firewall.finish(fullText) : ALLOW;
        if (verdict.action === "block" || checkedTo >= MAX_ANSWER_CHECK_CHARS) return verdict;
        const own = await check(fullText.slice(0, MAX_ANSWER_CHECK_CHARS + STREAM_OVERLAP_CHARS), checkedTo);
        return own.action === "block" ? own : verdict;
      },
    };
  }
}

/** The reason a block names: the entity type (and rule) and where, never the value. */
export function blockReason(finding: LocatedFinding): string {
  return `data_protection: ${finding.type}${finding.rule ? ` (${finding.rule})` : ""} found in ${finding.where}`;
}

const replacedInAnswers = (f: Finding) => f.action === "redact" || f.action === "block";
/** In a request, blocked values are replaced too: such a request is not forwarded, but its evidence must not hold them. */
const replacedInRequests = (f: Finding) => f.action !== "log";

function blockedVerdict(finding: LocatedFinding): FirewallVerdict {
  return { action: "block", family: "data_protection", reason: blockReason(finding), matches: [] };
}

export type ProtectedRequest = {
  /** The request as the provider will receive it: redacted and masked values replaced. */
  request: ProxiedRequest;
  protection: RequestProtection;
  /** The first finding whose action is block: the request is refused. */
  blocked: LocatedFinding | undefined;
};

/** The pipeline's data protection stage: runs first, so the firewall, cache and evidence see what the provider sees. */
export interface DataProtectionStage {
  protect(request: ProxiedRequest): Promise<ProtectedRequest>;
}

export function dataProtectionStage(metrics: DataProtectionMetrics): DataProtectionStage {
  return {
    async protect(request) {
      const policy = compilePolicy(request.workspace.dataProtection as StoredPolicy | null);
      const placeholders = new Placeholders();
      const protection = new RequestProtection(policy, placeholders, metrics);
      // The parsed body is this request's own: replacing values in it needs no copy.
      const { body } = request;
      const found = await scanJson(body, policy, placeholders, replacedInRequests);
      protection.note("input", found);
      const blocked = found.find((f) => f.action === "block");
      if (blocked) return { request: { ...request, body, rawBody: JSON.stringify(body) }, protection, blocked };
      if (!found.some(replacedInRequests)) return { request, protection, blocked };
      const view = request.dialect.read(request.dialect.schema.parse(body));
      return { request: { ...request, body, view, rawBody: JSON.stringify(body) }, protection, blocked };
    },
  };
}
