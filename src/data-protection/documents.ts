import type { ChunkDraft } from "../documents/chunking";
import type { StoredPolicy } from "./model";
import { Placeholders } from "./placeholders";
import type { WorkspaceScope } from "../tenancy/scope";
import { compilePolicy, effectivePolicy, scanText } from "./policy";

/**
 * Uploaded documents: each chunk's metadata says which entity types its text holds
 * (`metadata.data_protection.types`, counts by type); with `redact` (the upload's redact_findings,
 * by default the workspace's `redact_documents`),
 * findings whose action is block, redact or mask are replaced by placeholders in the stored text
 * (and so in what is embedded and searched). Offsets in the metadata (char_start, char_end) keep
 * pointing into the original document text.
 */
export async function protectChunks(drafts: ChunkDraft[], stored: StoredPolicy | null, redact: boolean): Promise<void> {
  const policy = compilePolicy(stored);
  const placeholders = new Placeholders();
  for (const draft of drafts) {
    const findings = await scanText(draft.text, policy);
    if (findings.length === 0) continue;
    const types: Record<string, number> = {};
    for (const finding of findings) types[finding.type] = (types[finding.type] ?? 0) + 1;
    const replaced = redact ? findings.filter((f) => f.action !== "log") : [];
    if (replaced.length) draft.text = placeholders.apply(draft.text, replaced);
    draft.metadata = { ...draft.metadata, data_protection: { types, redacted: replaced.length > 0 } };
  }
}

/** Whether an upload that does not say (no redact_findings) has its findings redacted: the workspace's redact_documents. */
export async function redactsDocumentsByDefault(scope: WorkspaceScope): Promise<boolean> {
  return effectivePolicy((await scope.workspace()).dataProtection).redact_documents;
}
