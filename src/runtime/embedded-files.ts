import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

/**
 * A native library cannot be dlopen'ed from the binary's embedded file system, so it is copied
 * to a private per-user directory first, named by its content hash so concurrent or later runs
 * reuse it and a different build never loads a stale copy.
 */
export function extractEmbeddedFile(embeddedPath: string): string {
  const bytes = readFileSync(embeddedPath);
  const digest = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  const dir = join(process.env.XDG_RUNTIME_DIR || tmpdir(), `sieve-${uid}`, digest);
  const target = join(dir, basename(embeddedPath));
  if (existsSync(target)) return target;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const partial = `${target}.${process.pid}.tmp`;
  writeFileSync(partial, bytes, { mode: 0o600 }); // copyFile cannot read the embedded file system
  renameSync(partial, target); // atomic: another process never sees half a library
  return target;
}
