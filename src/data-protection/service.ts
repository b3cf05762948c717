import { badRequest } from "../http/errors";
import type { WorkspaceScope } from "../tenancy/scope";
import { customPatternProblem } from "./custom-pattern";
import type { PolicyInput, StoredPolicy } from "./model";
import { Placeholders } from "./placeholders";
import { compilePolicy, effectivePolicy, scanText } from "./policy";

/**
 * The policy a PATCH makes: the given actions over the stored ones, and the custom list replaced
 * when one is given. Every custom pattern is checked first (400 naming it; nothing is stored).
 */
export function mergePolicy(stored: StoredPolicy | null, patch: PolicyInput): StoredPolicy {
  const custom = patch.custom ?? stored?.custom ?? [];
  custom.forEach((pattern, i) => {
    const problem = customPatternProblem(pattern.pattern);
    if (problem) throw badRequest(`body.data_protection.custom[${i}].pattern: ${problem}`);
  });
  const phoneRegions = patch.phone_regions ?? stored?.phone_regions;
  return {
    actions: { ...(stored?.actions ?? {}), ...(patch.actions ?? {}) },
    custom,
    ...(phoneRegions ? { phone_regions: [...new Set(phoneRegions)] } : {}),
    redact_documents: patch.redact_documents ?? stored?.redact_documents ?? false,
  };
}

/** The policy as GET /api/workspace shows it: every built-in type's action (defaults filled in) and the custom patterns. */
export function policyView(stored: StoredPolicy | null) {
  return effectivePolicy(stored);
}

/** POST /v1/data-protection/test: what the workspace's policy finds in a text and what the provider would receive. */
export async function testText(scope: WorkspaceScope, text: string) {
  const workspace = await scope.workspace();
  const findings = await scanText(text, compilePolicy(workspace.dataProtection));
  const blocked = findings.some((f) => f.action === "block");
  return {
    findings: findings.map((f) => ({ type: f.type, ...(f.rule ? { rule: f.rule } : {}), start: f.start, end: f.end, action: f.action })),
    text: new Placeholders().apply(text, findings.filter((f) => f.action === "redact" || f.action === "mask")),
    blocked,
  };
}
