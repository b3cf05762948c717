import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Every directory tempDir made in this test process (bun test emits no "exit" event to clean up on). */
const made: string[] = [];

export function tempDir(prefix = "sieve-test-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes them all: run once after the last test (preload.ts), so no run, passed or failed, leaves them in /tmp. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
