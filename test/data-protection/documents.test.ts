import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DocumentsClient } from "../documents/api-client";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";

let sieve: TestSieve;

beforeAll(async () => {
  sieve = await startSieve();
});
afterAll(() => sieve.close());

const EMAIL = "lena.schmidt@example-mail.org";
const IBAN = "DE89 3704 0044 0532 0130 00";
const MARKDOWN = `# Payroll\n\nSalaries are paid to ${IBAN} on the first of the month.\n\n# Contact\n\nQuestions go to ${EMAIL}.\n\n# Notes\n\nThe office is closed on public holidays.\n`;

const setPolicy = (t: Tenant, data_protection: unknown) =>
  fetch(`${sieve.url}/api/workspace`, { method: "PATCH", headers: { ...t.bearer, "content-type": "application/json" }, body: JSON.stringify({ data_protection }) });

async function chunksOf(client: DocumentsClient, name: string, fields: Record<string, string> = {}, text = MARKDOWN): Promise<any[]> {
  const upload = await client.uploadCompleted(name, text, fields);
  return client.allChunks(upload.variant_id);
}

describe("uploaded documents", () => {
  test("each chunk's metadata names the entity types its text holds; the text is kept as uploaded by default", async () => {
    const client = new DocumentsClient(sieve.url, await sieve.tenant("docs-flag"));
    const chunks = await chunksOf(client, "payroll.md");
    const all = chunks.map((c) => c.text).join("\n");
    expect(all).toContain(EMAIL);
    const flagged = chunks.filter((c) => c.metadata.data_protection);
    const types = Object.assign({}, ...flagged.map((c) => c.metadata.data_protection.types));
    expect(types).toMatchObject({ email: 1, iban: 1 });
    expect(flagged.every((c) => c.metadata.data_protection.redacted === false)).toBe(true);
    expect(chunks.every((c) => typeof c.metadata.char_start === "number")).toBe(true);
    expect(chunks.some((c) => c.text.includes("public holidays") && !c.metadata.data_protection)).toBe(true);
  });

  test("with redact_documents the stored chunk text holds placeholders instead", async () => {
    const tenant = await sieve.tenant("docs-redact");
    expect((await setPolicy(tenant, { actions: { email: "redact", iban: "mask" }, redact_documents: true })).status).toBe(200);
    const chunks = await chunksOf(new DocumentsClient(sieve.url, tenant), "payroll.md");
    const all = chunks.map((c) => c.text).join("\n");
    expect(all).not.toContain(EMAIL);
    expect(all).not.toContain(IBAN);
    expect(all).toContain("[EMAIL_1]");
    expect(all).toContain("[IBAN_1]");
    expect(chunks.filter((c) => c.metadata.data_protection).every((c) => c.metadata.data_protection.redacted)).toBe(true);
  });

  test("redact_findings on an upload overrides the workspace default, both ways, and is a variant of its own", async () => {
    const tenant = await sieve.tenant("docs-upload-option");
    expect((await setPolicy(tenant, { actions: { email: "redact", iban: "mask" } })).status).toBe(200);
    const client = new DocumentsClient(sieve.url, tenant);
    const redacted = await chunksOf(client, "payroll.md", { redact_findings: "true" });
    expect(redacted.map((c) => c.text).join("\n")).not.toContain(EMAIL);
    expect(redacted.map((c) => c.text).join("\n")).toContain("[EMAIL_1]");

    // The same bytes again without the option: the workspace default (keep) gives a variant of its own, with the text as uploaded.
    const kept = await client.uploadCompleted("payroll-copy.md", MARKDOWN);
    const keptVariant = await client.getJson(`/api/documents/variants/${kept.variant_id}`);
    expect(keptVariant.redact_findings).toBe(false);
    expect((await client.allChunks(kept.variant_id)).map((c) => c.text).join("\n")).toContain(EMAIL);

    // A workspace that redacts by default keeps one upload's text when the upload says false (a JSON upload this time).
    expect((await setPolicy(tenant, { redact_documents: true })).status).toBe(200);
    const other = MARKDOWN.replace("first of the month", "fifteenth");
    const response = await client.uploadJson({ filename: "payroll-2.md", text: other, redact_findings: false });
    expect([201, 202]).toContain(response.status);
    const upload = (await response.json()) as any;
    const variant = await client.waitForVariant(upload.variant_id);
    expect(variant.redact_findings).toBe(false);
    expect((await client.allChunks(upload.variant_id)).map((c) => c.text).join("\n")).toContain(EMAIL);
    const byDefault = await chunksOf(client, "payroll-3.md", {}, MARKDOWN.replace("first of the month", "last day"));
    expect(byDefault.map((c) => c.text).join("\n")).not.toContain(EMAIL);

    const bad = await client.uploadFile("payroll-4.md", MARKDOWN, { redact_findings: "maybe" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("redact_findings");
  });
});
