#!/usr/bin/env bun
import { formatHelp, loadConfig, parseOptions, serveOptions, UsageError } from "./config";
import { adminOptions } from "./cli/admin-options";
import { keysCreate, keysList, keysRevoke, openAdminDatabase, workspacesCreate, workspacesList } from "./cli/admin";
import { startServer, stopInferencePool } from "./server";
import type { Storage } from "./db/connection";
import { bootstrapFirstKey } from "./tenancy/onboarding";
import { VERSION } from "./version";

const HELP = `sieve ${VERSION}: self-hosted LLM sidecar (OpenAI-compatible proxy with semantic firewall and cache, document API)

Usage:
  sieve [serve] [options]                      start the service (the default command)
  sieve keys create [--workspace ID] [--name N] [--data-dir D] [--init] [--json]
  sieve keys list [--workspace ID] [--data-dir D] [--json]
  sieve keys revoke KEY_ID [--data-dir D] [--json]
  sieve workspaces create [--name N] [--data-dir D] [--init] [--json]
  sieve workspaces list [--data-dir D] [--json]
  sieve --help | --version

Serve options:
${formatHelp(serveOptions)}

Admin options:
${formatHelp(adminOptions)}
`;

async function main(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(HELP);
    return 0;
  }
  if (argv.includes("--version") || argv.includes("-v")) {
    process.stdout.write(`sieve ${VERSION}\n`);
    return 0;
  }
  const [command = "serve", ...rest] = argv[0]?.startsWith("--") ? ["serve", ...argv] : argv;
  switch (command) {
    case "serve":
      return serve(rest);
    case "keys":
    case "workspaces":
      return admin(command, rest);
    default:
      throw new UsageError(`${command}: unknown command (see --help)`);
  }
}

async function serve(args: string[]): Promise<number> {
  const config = loadConfig(args);
  const starting = startServer(config);
  // Handlers first: start-up still resumes document jobs after "listening" is logged, and a
  // SIGTERM in that window used to end the process by the signal's default (exit 143, no
  // graceful stop). A signal during start-up now waits for it, then stops. The pool's threads
  // finish the texts they are running before the process exits.
  const shutdown = () =>
    starting
      .then((running) => running.stop())
      .then(stopInferencePool, stopInferencePool) // a failed start is reported by main(); its threads still end
      .then(() => process.exit(0));
  process.once("SIGTERM", shutdown);
  process.once("SIGINT", shutdown);
  const running = await starting;
  if (config.bootstrapKey) {
    const created = await bootstrapFirstKey(running.ctx.database);
    // Printed on request only (--bootstrap-key), to stderr, never through the structured log.
    if (created) process.stderr.write(`bootstrap key created: workspace ${created.workspaceId} key ${created.apiKey}\n`);
  }
  // Without its model Sieve cannot run the firewall or the cache: fail loudly rather than half-serve.
  running.ctx.embedder.loaded.catch((error: Error) => {
    process.stderr.write(`sieve: the embedding model failed to load: ${error.message}\n`);
    void running.stop().then(() => process.exit(1));
  });
  await new Promise(() => {}); // serve until a signal arrives
  return 0;
}

async function admin(group: "keys" | "workspaces", args: string[]): Promise<number> {
  const { values, positionals } = parseOptions(adminOptions, args, process.env);
  const [action, ...operands] = positionals;
  const storage = await openAdminDatabase(values.dataDir, values.database, values.init);
  // Which database the command used, on stderr so --json output stays one line.
  process.stderr.write(`sieve: database ${storage.location}\n`);
  try {
    const result = await runAdmin(group, action, operands, values, storage);
    print(result, values.json);
    return 0;
  } finally {
    await storage.close();
  }
}

async function runAdmin(
  group: "keys" | "workspaces",
  action: string | undefined,
  operands: string[],
  values: { workspace: string; name: string },
  handle: Storage,
): Promise<unknown> {
  const workspace = values.workspace || undefined;
  if (group === "keys" && action === "create") return keysCreate(handle, { workspace, name: values.name || "cli" });
  if (group === "keys" && action === "list") return keysList(handle, { workspace });
  if (group === "keys" && action === "revoke") {
    if (!operands[0]) throw new UsageError("keys revoke: missing KEY_ID");
    return keysRevoke(handle, operands[0]);
  }
  if (group === "workspaces" && action === "create") return workspacesCreate(handle, values.name || "workspace");
  if (group === "workspaces" && action === "list") return workspacesList(handle);
  throw new UsageError(`${group} ${action ?? ""}: unknown action (see --help)`.replace("  ", " "));
}

function print(result: unknown, json: boolean) {
  if (json) {
    process.stdout.write(JSON.stringify(result) + "\n");
    return;
  }
  const rows = Array.isArray(result) ? result : [result];
  for (const row of rows) {
    process.stdout.write(
      Object.entries(row as Record<string, unknown>)
        .map(([key, value]) => `${key}: ${value ?? "-"}`)
        .join("  ") + "\n",
    );
  }
  if (rows.length === 0) process.stdout.write("(none)\n");
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof UsageError ? error.message : `error: ${(error as Error).message}`;
    process.stderr.write(`sieve: ${message}\n`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
