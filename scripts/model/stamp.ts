/**
 * A stamp file next to the converted model records what it was made from (source hash, converter
 * hash) and the hash of every output, so a re-run can skip work only when nothing could differ.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const STAMP_FILE = "convert-stamp.json";

export type Stamp = { converter: string; source: string; files: Record<string, string> };

export function sha256(...contents: (Uint8Array | string)[]): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (const content of contents) hasher.update(content);
  return hasher.digest("hex");
}

export function sha256OfFiles(paths: string[]): string {
  return sha256(...paths.flatMap((path) => [path.split("/").pop() ?? path, readFileSync(path)]));
}

export function readStamp(outDir: string): Stamp | undefined {
  const path = join(outDir, STAMP_FILE);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Stamp;
  } catch {
    return undefined; // unreadable stamp: treat as absent and reconvert
  }
}

/** True when every file the stamp lists exists with the recorded hash. */
export function outputsMatch(outDir: string, stamp: Stamp): boolean {
  return Object.entries(stamp.files).every(([file, hash]) => {
    const path = join(outDir, file);
    return existsSync(path) && sha256(readFileSync(path)) === hash;
  });
}

export function writeStamp(outDir: string, stamp: Stamp): void {
  writeFileSync(join(outDir, STAMP_FILE), `${JSON.stringify(stamp, null, 2)}\n`);
}
