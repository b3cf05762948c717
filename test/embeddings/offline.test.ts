import { expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";

// The real model in a child process: seconds per test, more on a busy 2-core box.
setDefaultTimeout(120_000);

test("loading the models and embedding never touch the network", async () => {
  const probe = Bun.spawn([process.execPath, join(import.meta.dir, "offline-probe.ts")], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(probe.stdout).text(), new Response(probe.stderr).text(), probe.exited]);
  expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
  const report = JSON.parse(stdout.trim().split("\n").pop()!) as { attempts: string[]; newTcpSockets: string[]; dims: number[] };
  expect(report.attempts).toEqual([]);
  expect(report.newTcpSockets).toEqual([]);
  expect(report.dims).toEqual([384, 384, 384]);
});
