import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { UPLOAD_SLOTS } from "../../src/documents/admission";
import { makeDocx } from "../fixtures-gen/make-docx";
import { samplePdf } from "../fixtures-gen/sample-documents";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";
import { DocumentsClient } from "./api-client";

const LIMIT = 64 * 1024;
let sieve: TestSieve;
let victim: Tenant;
let api: DocumentsClient;
let other: DocumentsClient;
let otherUpload: any;

beforeAll(async () => {
  sieve = await startSieve({ maxUploadBytes: LIMIT });
  victim = await sieve.tenant("bad-input");
  api = new DocumentsClient(sieve.url, victim);
  other = new DocumentsClient(sieve.url, await sieve.tenant("other"));
  otherUpload = await other.uploadCompleted("theirs.md", "# Theirs\n\nA document that belongs to another workspace.");
});

afterAll(async () => {
  await sieve.close();
});

const DOCUMENT_NOT_FOUND = { detail: "Document not found", status_code: 404 };
const VARIANT_NOT_FOUND = { detail: "Variant not found", status_code: 404 };

/** Every document API error but the spec's two 404s: `{detail, status_code, code}`. */
async function expectError(response: Response, status: number, detailPattern: RegExp) {
  const body: any = await response.json();
  expect({ status: response.status, body }).toMatchObject({ status, body: { status_code: status, code: expect.stringMatching(/^[a-z_]+$/) } });
  expect(body.detail).toMatch(detailPattern);
}

/** Rows the workspace has in every document table: all must stay 0 after rejected uploads. */
async function storedRows(workspaceId: string): Promise<Record<string, number>> {
  const count = async (table: string) => Number((await sieve.ctx.database.all<{ n: number }>(`select count(*) as n from ${table} where workspace_id = $id`, { id: workspaceId }))[0]!.n);
  const tables = ["documents", "document_versions", "document_variants", "document_chunks", "document_blobs", "chunk_embeddings", "document_usage"];
  return Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await count(table)])));
}

describe("rejected uploads store nothing", () => {
  test("unsupported, corrupt, empty, oversized files; bad options; unknown or foreign parent", async () => {
    const pdf = (await samplePdf()).bytes;
    const docx = await makeDocx([{ paragraph: "Only a paragraph." }]);
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const gif = new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0]);
    const cases: [string, () => Promise<Response>, number, RegExp][] = [
      ["gif image", () => api.uploadFile("photo.gif", gif), 415, /GIF/],
      ["truncated png (OCR cannot decode it)", () => api.uploadFile("photo.png", png), 422, /cannot be decoded/],
      ["zip that is not a docx", () => api.uploadFile("archive.zip", docx.slice(0, 4)), 415, /zip/],
      ["truncated PDF", () => api.uploadFile("broken.pdf", pdf.slice(0, 400)), 422, /^file: /],
      ["PDF name, no PDF inside", () => api.uploadFile("fake.pdf", "just words"), 422, /PDF/],
      ["docx that is not a zip", () => api.uploadFile("fake.docx", "plain words"), 422, /docx/],
      ["truncated docx", () => api.uploadFile("cut.docx", docx.slice(0, docx.length / 2)), 422, /^file: /],
      ["empty file", () => api.uploadFile("empty.txt", new Uint8Array()), 400, /empty/],
      ["whitespace only", () => api.uploadFile("blank.md", "   \n\n  "), 400, /no text/],
      ["empty JSON text", () => api.uploadJson({ filename: "e.txt", text: "" }), 400, /empty/],
      ["over the size limit", () => api.uploadFile("big.txt", "word ".repeat(LIMIT / 5 + 10)), 413, /upload limit/],
      ["over the size limit as base64", () => api.uploadJson({ filename: "big.txt", content_base64: Buffer.alloc(LIMIT + 1, 65).toString("base64") }), 413, /upload limit/],
      ["unknown parent", () => api.uploadFile("v2.md", "# New\n\nText.", { parent_document_id: "no-such-document" }), 404, /Document not found/],
      ["another workspace's parent", () => api.uploadFile("v2.md", "# New\n\nText.", { parent_document_id: otherUpload.document_id }), 404, /Document not found/],
      ["chunk_size not a number", () => api.uploadFile("a.md", "# A\n\nText.", { chunk_size: "big" }), 400, /chunk_size/],
      ["chunk_size too small", () => api.uploadFile("a.md", "# A\n\nText.", { chunk_size: 2 }), 400, /chunk_size/],
      ["chunk_size fractional (JSON)", () => api.uploadJson({ filename: "a.md", text: "x y", chunk_size: 100.5 }), 400, /chunk_size/],
      ["overlap not below size", () => api.uploadFile("a.md", "# A\n\nText.", { chunk_size: 100, chunk_overlap: 100 }), 400, /chunk_overlap/],
      ["negative overlap", () => api.uploadJson({ filename: "a.md", text: "x y", chunk_overlap: -1 }), 400, /chunk_overlap/],
      ["unknown strategy", () => api.uploadFile("a.md", "# A\n\nText.", { chunking_strategy: "fancy" }), 400, /chunking_strategy/],
      ["unknown field", () => api.uploadFile("a.md", "# A\n\nText.", { chunksize: 100 }), 400, /chunksize/],
      ["multipart file named with a path", () => api.uploadFile("dir/notes.md", "# Notes\n\nText."), 400, /filename/],
      ["JSON without filename", () => api.uploadJson({ text: "hello" }), 400, /filename/],
      ["JSON with a path as filename", () => api.uploadJson({ filename: "../etc/passwd", text: "hello" }), 400, /filename/],
      ["JSON with both contents", () => api.uploadJson({ filename: "a.txt", text: "a", content_base64: "YQ==" }), 400, /exactly one/],
      ["JSON with neither content", () => api.uploadJson({ filename: "a.txt" }), 400, /exactly one/],
      ["JSON with bad base64", () => api.uploadJson({ filename: "a.txt", content_base64: "not base64!" }), 400, /content_base64/],
      ["JSON with wrong types", () => api.uploadJson({ filename: 7, text: ["a"] }), 400, /filename|text/],
      ["JSON array body", () => api.uploadJson([1, 2]), 400, /body/],
      ["broken JSON", () => fetch(`${sieve.url}/api/documents`, { method: "POST", headers: { ...victim.bearer, "content-type": "application/json" }, body: "{" }), 400, /JSON/],
      ["text/plain body", () => fetch(`${sieve.url}/api/documents`, { method: "POST", headers: { ...victim.bearer, "content-type": "text/plain" }, body: "hi" }), 415, /multipart/],
      ["multipart without file", () => fetch(`${sieve.url}/api/documents`, { method: "POST", headers: victim.bearer, body: formWith({ filename: "a.txt" }) }), 400, /file/],
      ["file sent as a text field", () => fetch(`${sieve.url}/api/documents`, { method: "POST", headers: victim.bearer, body: formWith({ file: "hello" }) }), 400, /file/],
    ];
    for (const [name, send, status, detail] of cases) {
      const response = await send();
      const body: any = await response.json();
      expect({ name, status: response.status }).toEqual({ name, status });
      expect({ name, detail: body.detail }).toEqual({ name, detail: expect.stringMatching(detail) });
    }
    expect(await storedRows(victim.workspaceId)).toEqual({
      documents: 0, document_versions: 0, document_variants: 0, document_chunks: 0, document_blobs: 0, chunk_embeddings: 0, document_usage: 0,
    });
    expect((await api.getJson("/api/documents")).total).toBe(0);
    expect((await api.getJson("/api/usage")).documents.documents_uploaded).toBe(0);
  });

  test("a refused upload gives back its turn: more refusals than upload slots, then an upload still goes through", async () => {
    // Options refused after admission (chunk_overlap is checked against chunk_size) once kept their slot for good.
    for (let i = 0; i <= UPLOAD_SLOTS; i++) {
      const refused = await api.uploadFile("a.md", "# A\n\nText.", { chunk_size: 100, chunk_overlap: 100 });
      expect(refused.status).toBe(400);
      await refused.body?.cancel();
    }
    const accepted = await api.uploadFile("after-refusals.md", "# After\n\nAn upload after the refused ones.");
    expect(accepted.status).toBe(201);
    const deleted = await fetch(`${sieve.url}/api/documents/${((await accepted.json()) as { document_id: string }).document_id}`, { method: "DELETE", headers: victim.bearer });
    expect(deleted.status).toBe(200);
  });

  test("unknown or foreign parent gives the spec's exact 404 body", async () => {
    const response = await api.uploadFile("v2.md", "# New\n\nText.", { parent_document_id: otherUpload.document_id });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(DOCUMENT_NOT_FOUND);
  });

  test("a body far over the limit is refused before it is read", async () => {
    const huge = "x".repeat(4 * LIMIT);
    const response = await fetch(`${sieve.url}/api/documents`, {
      method: "POST",
      headers: { ...victim.bearer, "content-type": "application/json" },
      body: JSON.stringify({ filename: "huge.txt", text: huge }),
    });
    expect(response.status).toBe(413);
  });
});

function formWith(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  return form;
}

describe("every endpoint refuses bad input", () => {
  test("no key, a malformed key, an unknown key: 401", async () => {
    for (const headers of [{}, { authorization: "Bearer nope" }, { authorization: `Bearer ${victim.apiKey.slice(0, -2)}xx` }] as Record<string, string>[]) {
      for (const path of ["/api/documents", "/api/documents/duplicates", "/api/usage", `/api/documents/variants/${otherUpload.variant_id}/chunks`]) {
        const response = await fetch(`${sieve.url}${path}`, { headers });
        expect({ path, status: response.status }).toEqual({ path, status: 401 });
      }
      const upload = await fetch(`${sieve.url}/api/documents`, { method: "POST", headers, body: formWith({}) });
      expect(upload.status).toBe(401);
    }
  });

  test("chunk paging parameters are validated and named", async () => {
    const own = await api.uploadCompleted("paging.md", "# Paging\n\nOne sentence here. Another one there.");
    const cases: [string, RegExp][] = [
      ["limit=0", /query\.limit/],
      ["limit=1001", /query\.limit/],
      ["limit=-5", /query\.limit/],
      ["limit=abc", /query\.limit/],
      ["limit=1.5", /query\.limit/],
      ["limit=", /query\.limit/],
      ["offset=-1", /query\.offset/],
      ["offset=x", /query\.offset/],
      ["include_full_metadata=maybe", /query\.include_full_metadata/],
    ];
    for (const [query, detail] of cases) {
      const response = await api.get(`/api/documents/variants/${own.variant_id}/chunks?${query}`);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      const { detail: sentence, ...rest }: any = await response.json();
      expect(rest).toEqual({ status_code: 400, code: "invalid_request" });
      expect(sentence).toMatch(detail);
      // The sentence names the bounds, never the pattern the value is checked with.
      expect(sentence).not.toMatch(/\/\^/);
    }
    for (const query of ["limit=1", "limit=1000", "offset=0", "include_full_metadata=1", "include_full_metadata=false"]) {
      expect((await api.get(`/api/documents/variants/${own.variant_id}/chunks?${query}`)).status).toBe(200);
    }
    for (const query of ["limit=0", "limit=5000", "offset=-2"]) {
      expect((await api.get(`/api/documents?${query}`)).status).toBe(400);
    }
  });

  test("unknown and foreign ids: 404 with the spec's exact bodies, nothing changed", async () => {
    const variantPaths = ["", "/chunks", "/dedup-summary"];
    for (const id of ["no-such-variant", otherUpload.variant_id]) {
      for (const suffix of variantPaths) {
        const response = await api.get(`/api/documents/variants/${id}${suffix}`);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual(VARIANT_NOT_FOUND);
      }
    }
    for (const id of ["no-such-document", otherUpload.document_id]) {
      for (const response of [
        await api.get(`/api/documents/${id}`),
        await api.get(`/api/documents/${id}/duplicates`),
        await api.delete(`/api/documents/${id}`),
        await api.post(`/api/documents/${id}/variants`, { chunk_size: 100 }),
      ]) {
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual(DOCUMENT_NOT_FOUND);
      }
    }
    // The other workspace's document is intact.
    expect((await other.getJson(`/api/documents/${otherUpload.document_id}`)).variants).toHaveLength(1);
    expect((await other.allChunks(otherUpload.variant_id)).length).toBeGreaterThan(0);
  });

  test("new variant: bad configuration is named", async () => {
    const own = await api.uploadCompleted("variants.md", "# Variants\n\nSome text to chunk again.");
    for (const [body, detail] of [
      [{ chunk_size: "x" }, /chunk_size/],
      [{ chunk_size: 10_000_000 }, /chunk_size/],
      [{ chunking_strategy: "other" }, /chunking_strategy/],
      [{ chunk_size: 40, chunk_overlap: 40 }, /chunk_overlap/],
      [{ colour: "red" }, /colour/],
      [[], /body/],
    ] as [unknown, RegExp][]) {
      await expectError(await api.post(`/api/documents/${own.document_id}/variants`, body), 400, detail);
    }
    expect((await api.getJson(`/api/documents/${own.document_id}`)).variants).toHaveLength(1);
  });
});

describe("a NUL byte in a file name (issue #56, defect 7)", () => {
  // Bun's multipart parser ends a header parameter at a NUL byte: a part named "a\0b.md" was
  // stored as "a". Every upload form must refuse such a name, naming the field, and store nothing.
  const boundary = "sieve-nul-test";
  const rawMultipart = (partHeaders: string, text = "# Notes\n\nText.") =>
    fetch(`${sieve.url}/api/documents`, {
      method: "POST",
      headers: { ...victim.bearer, "content-type": `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\n${partHeaders}\r\nContent-Type: text/markdown\r\n\r\n${text}\r\n--${boundary}--\r\n`,
    });

  test("multipart file part, multipart filename field, raw part headers, JSON: 400 naming filename, nothing stored", async () => {
    const tenant = await sieve.tenant("nul-names");
    const client = new DocumentsClient(sieve.url, tenant);
    const field = new FormData();
    field.append("file", new Blob(["# Notes\n\nText."]), "notes.md");
    field.append("filename", "a\u0000b.md");
    const cases: [string, () => Promise<Response>][] = [
      ["multipart file part (FormData)", () => client.uploadFile("a\u0000b.md", "# Notes\n\nText.")],
      ["multipart filename field", () => fetch(`${sieve.url}/api/documents`, { method: "POST", headers: tenant.bearer, body: field })],
      ["raw part header", () => rawMultipart(`Content-Disposition: form-data; name="file"; filename="a\u0000b.md"`)],
      ["JSON filename", () => client.uploadJson({ filename: "a\u0000b.md", text: "# Notes\n\nText." })],
    ];
    for (const [name, send] of cases) {
      const response = await send();
      const body: any = await response.json();
      expect({ name, status: response.status, code: body.code }).toEqual({ name, status: 400, code: "invalid_request" });
      expect({ name, detail: body.detail }).toEqual({ name, detail: expect.stringMatching(/^body\.filename: must be a plain file name/) });
    }
    expect(await storedRows(tenant.workspaceId)).toEqual({
      documents: 0, document_versions: 0, document_variants: 0, document_chunks: 0, document_blobs: 0, chunk_embeddings: 0, document_usage: 0,
    });
  });

  test("a NUL in another part header (a field's name) is refused too, naming the part", async () => {
    const response = await rawMultipart(`Content-Disposition: form-data; name="file\u0000x"; filename="notes.md"`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).detail).toMatch(/^body: .*NUL/);
  });

  test("an ordinary name in a hand-written multipart body is still accepted", async () => {
    const response = await rawMultipart(`Content-Disposition: form-data; name="file"; filename="plain-notes.md"`, "# Plain notes\n\nA name without a NUL.");
    expect(response.status).toBe(201);
    expect(((await response.json()) as any).filename).toBe("plain-notes.md");
  });
});
