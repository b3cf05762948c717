/**
 * The peer bench:proxy compares Sieve with: the Portkey AI gateway, an open-source LLM gateway
 * that runs on Node, with no guardrails and no cache (its plain proxy path). It is installed at
 * bench time from the npm registry into node_modules/.cache/bench-peer (once; later runs reuse it)
 * and never becomes an install or test dependency. It forwards to the same fake provider through
 * its custom-host header.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { startProcess } from "./processes";

const PACKAGE = "@portkey-ai/gateway";
const VERSION = "1.15.2";
const root = resolve(import.meta.dir, "../..");
const prefix = join(root, "node_modules", ".cache", "bench-peer");

export type PeerGateway = { name: string; url: string; headers: Record<string, string>; stop: () => void };

export async function startPeerGateway(upstreamUrl: string): Promise<PeerGateway> {
  const entry = join(prefix, "node_modules", PACKAGE, "build", "start-server.js");
  if (!existsSync(entry)) {
    mkdirSync(prefix, { recursive: true });
    const installed = Bun.spawnSync(["npm", "install", "--no-save", "--no-audit", "--no-fund", "--prefix", prefix, `${PACKAGE}@${VERSION}`], { cwd: prefix, stderr: "pipe", stdout: "pipe" });
    if (installed.exitCode !== 0 || !existsSync(entry)) throw new Error(`npm install ${PACKAGE}@${VERSION} failed: ${installed.stderr.toString().trim().split("\n").at(-1)}`);
  }
  const port = freePort();
  const { child } = await startProcess([process.env.NODE ?? "node", entry, `--port=${port}`, "--headless"], /Ready for connections/);
  return {
    name: `Portkey gateway ${VERSION}`,
    url: `http://127.0.0.1:${port}/v1`,
    headers: { "x-portkey-provider": "openai", "x-portkey-custom-host": upstreamUrl },
    stop: () => child.kill("SIGTERM"),
  };
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const { port } = probe;
  probe.stop(true);
  return port!;
}
