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

async function chunksOf(client: DocumentsClient, name: string): Promise<any[]> {
  const upload = await client.uploadCompleted(name, MARKDOWN);
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
});
