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
  const target = join(privateDir(createHash("sha256").update(bytes).digest("hex").slice(0, 16)), basename(embeddedPath));
  writeChecked(target, bytes);
  return target;
}

function privateDir(digest: string): string {
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  const dir = join(process.env.XDG_RUNTIME_DIR || tmpdir(), `sieve-${uid}`, digest);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  return dir;
}

/** Writes bytes to target unless an identical copy is there: a truncated or altered copy is replaced before anything loads it. */
function writeChecked(target: string, bytes: Buffer): void {
  if (existsSync(target) && readFileSync(target).equals(bytes)) return;
  const partial = `${target}.${process.pid}.tmp`;
  writeFileSync(partial, bytes, { mode: 0o600 }); // copyFile cannot read the embedded file system
  renameSync(partial, target); // atomic: another process never sees half a library
}

/**
 * Several files that must sit side by side (a native binding and the library it links with
 * $ORIGIN), copied into one directory named by their combined content hash; returns the directory.
 * build.ts passes the hash it computed (filesDigest), so start-up only compares bytes.
 */
export function extractEmbeddedFiles(embeddedPaths: string[], digest?: string): string {
  const contents = embeddedPaths.map((path) => ({ name: basename(path), bytes: readFileSync(path) }));
  const dir = privateDir(digest ?? filesDigest(contents));
  for (const { name, bytes } of contents) writeChecked(join(dir, name), bytes);
  return dir;
}

export function filesDigest(contents: { name: string; bytes: Uint8Array }[]): string {
  const hash = createHash("sha256");
  for (const { name, bytes } of contents) hash.update(name).update(bytes);
  return hash.digest("hex").slice(0, 16);
}
