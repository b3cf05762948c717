/**
 * The processes benches measure against: Sieve served by its own CLI in a process of its own, as
 * a user runs it (so nothing the bench itself does shares Sieve's event loop), and the fake
 * provider. Workspaces and keys are made with the CLI before the server starts.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Tenant } from "../../test/support/sieve";

const root = resolve(import.meta.dir, "../..");

/** Spawns a command and waits until its standard output matches `ready`; later output is drained. */
export async function startProcess(command: string[], ready: RegExp): Promise<{ child: ReturnType<typeof Bun.spawn>; match: RegExpExecArray }> {
  const child = Bun.spawn(command, { cwd: root, stdout: "pipe", stderr: "inherit" });
  let output = "";
  const decoder = new TextDecoder();
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  while (true) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`process exited before ready: ${command.join(" ")}\n${output}`);
    output += decoder.decode(value);
    const match = ready.exec(output);
    if (match) {
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return { child, match };
    }
  }
}

/** Runs the CLI; its one JSON line. */
function cli(args: string[]) {
  const done = Bun.spawnSync([process.execPath, "src/main.ts", ...args, "--json"], { cwd: root });
  if (done.exitCode !== 0) throw new Error(`sieve ${args.join(" ")}: ${done.stderr.toString()}`);
  return JSON.parse(done.stdout.toString());
}

export type SieveProcess = {
  url: string;
  /** What /readyz reported: the backend and thread count of the inference pool. */
  inference?: { backend: string; threads: number };
  /** One per name asked for, each a workspace of its own with an admin key. */
  tenants: Tenant[];
  /** The server process's peak resident memory so far (Linux VmHWM), in MiB; undefined elsewhere. */
  peakRssMb: () => number | undefined;
  /** SIGTERM, then removes the data directory. */
  stop: () => Promise<void>;
};

export async function startSieveProcess({ serveArgs = [], database = "", tenants = ["bench"] }: { serveArgs?: string[]; database?: string; tenants?: string[] }): Promise<SieveProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "sieve-bench-"));
  const databaseArgs = database ? ["--database", database] : [];
  const made = tenants.map((name): Tenant => {
    // A workspace of its own each: a shared database may hold others.
    const { workspace_id } = cli(["workspaces", "create", "--init", "--data-dir", dataDir, ...databaseArgs, "--name", name]);
    const { api_key, key_id } = cli(["keys", "create", "--data-dir", dataDir, ...databaseArgs, "--workspace", workspace_id]);
    return {
      workspaceId: workspace_id,
      apiKey: api_key,
      keyId: key_id,
      serviceHeaders: { "x-service-api-key": api_key, "x-service-workspace-id": workspace_id },
      bearer: { Authorization: `Bearer ${api_key}` },
    };
  });
  const { child, match } = await startProcess(
    [process.execPath, "src/main.ts", "serve", "--port", "0", "--data-dir", dataDir, ...databaseArgs, "--log-level", "info", ...serveArgs],
    /"msg":"listening","url":"([^"]+)"/,
  );
  const url = match[1]!;
  let ready: { inference?: { backend: string; threads: number } } = {};
  for (let i = 0; i < 400; i++) {
    const response = await fetch(`${url}/readyz`).catch(() => undefined);
    if (response?.ok) {
      ready = (await response.json()) as typeof ready;
      break;
    }
    await Bun.sleep(50);
  }
  return {
    url,
    inference: ready.inference,
    tenants: made,
    peakRssMb: () => {
      try {
        const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1];
        return kib ? Number(kib) / 1024 : undefined;
      } catch {
        return undefined;
      }
    },
    stop: () => (child.kill("SIGTERM"), child.exited.then(() => rmSync(dataDir, { recursive: true, force: true }))),
  };
}
