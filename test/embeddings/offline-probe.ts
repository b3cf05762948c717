/**
 * Run as its own process by offline.test.ts, so nothing has loaded the runtime yet: traps every
 * way out to the network (fetch, node:net sockets, Bun.connect), then loads both models and
 * embeds, on both ONNX Runtime backends. Prints one JSON line with what was attempted and which TCP sockets appeared.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";

const attempts: string[] = [];
const refuse = (what: string) => {
  attempts.push(what);
  throw new Error(`offline probe: network access attempted (${what})`);
};
globalThis.fetch = Object.assign((input: unknown) => refuse(`fetch ${String(input instanceof Request ? input.url : input)}`), {
  preconnect: () => refuse("fetch.preconnect"),
}) as typeof fetch;
net.Socket.prototype.connect = function (...args: unknown[]) {
  return refuse(`net.connect ${JSON.stringify(args[0])}`);
} as typeof net.Socket.prototype.connect;
Bun.connect = ((options: { hostname?: string }) => refuse(`Bun.connect ${options?.hostname}`)) as typeof Bun.connect;

/** Inodes of TCP sockets this process holds: its socket fds matched against the kernel's TCP tables. */
function tcpSocketInodes(): string[] {
  const ownSockets = new Set<string>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(join("/proc/self/fd", fd)));
      if (match) ownSockets.add(match[1]);
    } catch {
      // fd closed between readdir and readlink
    }
  }
  const tcpInodes = ["tcp", "tcp6"].flatMap((table) => {
    try {
      return readFileSync(`/proc/self/net/${table}`, "utf8").trim().split("\n").slice(1).map((line) => line.trim().split(/\s+/)[9]);
    } catch {
      return [];
    }
  });
  return tcpInodes.filter((inode) => ownSockets.has(inode));
}

const before = new Set(tcpSocketInodes());
const { InferencePool } = await import("../../src/inference/pool.ts");
const { assetPaths } = await import("../../src/runtime/assets.ts");
const modelDir = join(import.meta.dir, "..", "..", "models", "all-MiniLM-L6-v2");
const assets = assetPaths();
const files = { wasmMjs: assets.ortWasmMjs, wasm: assets.ortWasm };
const dims: number[] = [];
for (const [backend, quantized] of [["native", false], ["native", true], ["wasm", true]] as const) {
  const embedder = await new InferencePool({ threads: 1, backend, files }).loadModel({ modelDir, quantized });
  dims.push((await embedder.embed("Is anyone listening on the network?")).length);
}
const newTcpSockets = tcpSocketInodes().filter((inode) => !before.has(inode));
console.log(JSON.stringify({ attempts, newTcpSockets, dims }));
