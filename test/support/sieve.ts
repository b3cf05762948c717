import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { configWith, loadConfig, type Config } from "../../src/config";
import type { Embedder } from "../../src/embeddings/embedder";
import { loadEmbedder, startServer, type RunningServer, type ServerOptions } from "../../src/server";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { createApiKey, createWorkspace } from "../../src/tenancy/service";
import { freshPostgresDatabase } from "./suite-postgres";
import { tempDir } from "./temp-dir";

let embedder: Promise<Embedder> | undefined;

/** The ONNX Runtime backend the suites run on: SIEVE_EMBED_BACKEND (CI runs the model-dependent suites on both), default auto. */
export function backendUnderTest(): Config["embedBackend"] {
  return loadConfig([], { SIEVE_EMBED_BACKEND: process.env.SIEVE_EMBED_BACKEND }).embedBackend;
}

/** One real embedder per test process, on the backend under test: loading the model takes about a second. */
export function sharedEmbedder(): Promise<Embedder> {
  return (embedder ??= loadEmbedder(configWith({ embedBackend: backendUnderTest() })));
}

export type Tenant = { workspaceId: string; apiKey: string; keyId: string; serviceHeaders: Record<string, string>; bearer: Record<string, string> };

export type TestSieve = RunningServer & {
  dataDir: string;
  logs: string[];
  tenant: (name?: string) => Promise<Tenant>;
  /** Stops the server and removes its data dir. */
  close: () => Promise<void>;
};

export { tempDir };

/** A real Sieve on 127.0.0.1 with a fresh database (a file, or a PostgreSQL database: suite-postgres.ts); the embedder is shared. */
export async function startSieve(overrides: Partial<Config> = {}, options: Pick<ServerOptions, "now"> = {}): Promise<TestSieve> {
  const dataDir = overrides.dataDir ?? tempDir();
  const logs: string[] = [];
  const database = await freshPostgresDatabase();
  const config = configWith({ port: 0, dataDir, logLevel: "debug", ...(database ? { database } : {}), ...overrides });
  const server = await startServer(config, { embedder: await sharedEmbedder(), logSink: (line) => logs.push(line), ...options });
  const storage = server.ctx.database;
  return {
    ...server,
    dataDir,
    logs,
    async tenant(name = "test") {
      const workspace = await createWorkspace(storage.db, name);
      const { key, record } = await createApiKey(new WorkspaceScope(storage, workspace.id), `${name}-key`, "admin");
      return {
        workspaceId: workspace.id,
        apiKey: key,
        keyId: record.id,
        serviceHeaders: { "X-Service-Api-Key": key, "X-Service-Workspace-Id": workspace.id },
        bearer: { Authorization: `Bearer ${key}` },
      };
    },
    async close() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Writes every evidence record of the requests answered so far: their records are queued just
 * after each answer leaves (src/runtime/after-response.ts), then written in batches.
 */
export async function flushEvidence(sieve: TestSieve): Promise<void> {
  await sieve.ctx.afterResponse.idle();
  await sieve.ctx.evidence.flush();
}

/** A request's evidence record, once the background writer has flushed it (polls for up to ~2 s). */
export async function evidenceFor(sieve: TestSieve, tenant: Tenant, requestId: string): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const response = await fetch(`${sieve.url}/v1/evidence/${requestId}`, { headers: tenant.serviceHeaders });
    if (response.ok) return response.json();
    await Bun.sleep(20);
  }
  throw new Error(`no evidence for ${requestId}`);
}

/**
 * Everything the server's database holds, as text: the SQLite file's bytes (WAL included), or on
 * PostgreSQL every row of every table.
 */
export async function storedText(sieve: TestSieve): Promise<string> {
  const storage = sieve.ctx.database;
  if (storage.dialect === "sqlite") {
    return ["sieve.db", "sieve.db-wal"].map((f) => readFileSync(join(sieve.dataDir, f)).toString("latin1")).join("");
  }
  const tables = await storage.all<{ name: string }>("select table_name as name from information_schema.tables where table_schema = 'public'");
  const dumps = await Promise.all(tables.map(({ name }) => storage.all<{ row: string }>(`select t::text as row from "${name}" t`)));
  return dumps.flat().map((r) => r.row).join("\n");
}
