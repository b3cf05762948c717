import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// The real model in a child process: seconds per test, more on a busy 2-core box.
setDefaultTimeout(120_000);

test("loading the models and embedding never touch the network, nor write telemetry state under HOME", async () => {
  const home = mkdtempSync(join(tmpdir(), "sieve-offline-home-"));
  // No transpiler cache for the child: with XDG_CACHE_HOME empty, Bun would write it to ./bun/@t@.
  const env = { ...process.env, HOME: home, XDG_CACHE_HOME: "", BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" };
  const probe = Bun.spawn([process.execPath, join(import.meta.dir, "offline-probe.ts")], { stdout: "pipe", stderr: "pipe", env });
  const [stdout, stderr, code] = await Promise.all([new Response(probe.stdout).text(), new Response(probe.stderr).text(), probe.exited]);
  expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
  const report = JSON.parse(stdout.trim().split("\n").pop()!) as { attempts: string[]; newTcpSockets: string[]; dims: number[] };
  expect(report.attempts).toEqual([]);
  expect(report.newTcpSockets).toEqual([]);
  expect(report.dims).toEqual([384, 384, 384]);
  // Native ONNX Runtime keeps a telemetry device id in ~/.cache/Microsoft unless it is switched off.
  expect(existsSync(join(home, ".cache"))).toBe(false);
  rmSync(home, { recursive: true, force: true });
});
