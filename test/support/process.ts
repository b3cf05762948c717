import { spawn, type Subprocess } from "bun";
import { join, resolve } from "node:path";
import type { Tenant } from "./sieve";

export const REPO = resolve(import.meta.dir, "../..");
export const MAIN = join(REPO, "src/main.ts");

/** Runs a sieve CLI command to completion (the real entry point, as a user would). */
export async function runCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn([process.execPath, MAIN, ...args], { cwd: REPO, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}

export type ServeProcess = { child: Subprocess<"ignore", "pipe", "pipe">; url: string; output: () => string };

/** Starts `sieve serve` as its own process and waits for its "listening" log line. */
export async function spawnServe(args: string[], command: string[] = [process.execPath, MAIN], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = spawn([...command, "serve", "--port", "0", ...args], { cwd: REPO, env: { ...process.env, ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let output = "";
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) output += decoder.decode(chunk);
  };
  void pump(child.stdout);
  void pump(child.stderr);
  for (let i = 0; i < 300; i++) {
    const match = /"msg":"listening","url":"([^"]+)"/.exec(output);
    if (match) return { child, url: match[1]!, output: () => output };
    if (child.exitCode !== null) break;
    await Bun.sleep(50);
  }
  child.kill();
  throw new Error(`sieve serve did not start:\n${output}`);
}

export async function waitUntilReady(url: string, attempts = 200): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    const ok = await fetch(`${url}/readyz`).then((r) => r.ok, () => false);
    if (ok) return;
    await Bun.sleep(50);
  }
  throw new Error(`${url} never became ready`);
}

/** A workspace and API key created with `sieve keys create` on a data dir (no server needed: --init creates its database). */
export async function tenantFromCli(dataDir: string, workspaceId?: string): Promise<Tenant> {
  const args = ["keys", "create", "--init", "--data-dir", dataDir, "--json", ...(workspaceId ? ["--workspace", workspaceId] : [])];
  const { stdout, code, stderr } = await runCli(args);
  if (code !== 0) throw new Error(stderr);
  const created = JSON.parse(stdout) as { workspace_id: string; api_key: string; key_id: string };
  return {
    workspaceId: created.workspace_id,
    apiKey: created.api_key,
    keyId: created.key_id,
    serviceHeaders: {},
    bearer: { Authorization: `Bearer ${created.api_key}` },
  };
}
