/**
 * writeChunks (src/documents/chunk-store.ts) writes rows with its own cached statement, not
 * drizzle's insert: a column the caller omits must still take the schema's default. Runs on
 * PostgreSQL too (SIEVE_TEST_DATABASE=postgres).
 */
import { afterAll, expect, test } from "bun:test";
import { readChunks, readVectors, writeChunks } from "../../src/documents/chunk-store";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { startSieve, type TestSieve } from "../support/sieve";
import { DocumentsClient } from "./api-client";

let sieve: TestSieve | undefined;
afterAll(async () => {
  await sieve?.close();
});

test("a chunk written without injection_flagged gets the schema's default (false)", async () => {
  sieve = await startSieve();
  const tenant = await sieve.tenant("alice");
  const upload = await new DocumentsClient(sieve.url, tenant).uploadCompleted("notes.md", "# Notes\n\nThe backup runs nightly at two.\n");
  const scope = new WorkspaceScope(sieve.ctx.database, tenant.workspaceId);
  const [existing] = await readChunks(scope, upload.variant_id);
  const vector = (await readVectors(scope, upload.variant_id)).get(existing!.id)!;
  const { seq: _seq, workspaceId: _workspace, injectionFlagged: _flag, ...omitted } = existing!;
  const id = crypto.randomUUID();
  await scope.transaction((tx) => writeChunks(tx, [{ ...omitted, id, chunkIndex: existing!.chunkIndex + 1 }], [vector]));
  const written = (await readChunks(scope, upload.variant_id)).find((chunk) => chunk.id === id);
  expect(written?.injectionFlagged).toBe(false);
});
