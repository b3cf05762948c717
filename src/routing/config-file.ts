import { readFileSync } from "node:fs";
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import type { z } from "zod";
import { compileRouting } from "./compile";
import { routingDocumentSchema } from "./model";
import type { RoutingTable } from "./table";
import { fileLimitsSchema, pricesSchema, type FileLimits, type PriceOverride } from "../usage/model";

/**
 * The operator's file: the routing document, and the usage settings that only an operator sets:
 * `prices:` (models the catalogue lacks, or other prices) and `limits:` (defaults for every
 * workspace and key). A file may hold only those: targets are then optional.
 */
const configFileSchema = routingDocumentSchema("env")
  .partial({ targets: true })
  .extend({ prices: pricesSchema.optional(), limits: fileLimitsSchema.optional() })
  .refine((file) => file.targets !== undefined || file.prices !== undefined || file.limits !== undefined, {
    path: ["targets"],
    message: "expected array: a routing file lists its targets (a file of only prices: or limits: may leave them out)",
  });

/** What one valid file says: the routing table and the usage settings. */
export type ConfigFile = { table: RoutingTable; prices: Record<string, PriceOverride>; limits: FileLimits };

/** A routing file is an operator's hand-written configuration: a megabyte is far more than any needs. */
const MAX_FILE_BYTES = 1024 * 1024;

/** Every problem of a routing file, each naming its key and line: `routes[0].strategy (line 14): …`. */
export class RoutingFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.join("; ")}`);
  }
}

export type RoutingDefaults = {
  /** --upstream-timeout-ms: a route's timeout_ms and deadline_ms when it sets none. */
  timeoutMs: number;
  env: Record<string, string | undefined>;
};

/** Reads and validates a routing file (YAML, or JSON, which YAML reads too). Throws RoutingFileError. */
export function readRoutingFile(path: string, defaults: RoutingDefaults): ConfigFile {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.byteLength > MAX_FILE_BYTES) throw new RoutingFileError(path, [`the file is larger than ${MAX_FILE_BYTES} bytes`]);
    text = bytes.toString("utf8");
  } catch (error) {
    if (error instanceof RoutingFileError) throw error;
    throw new RoutingFileError(path, [`cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`]);
  }
  return parseConfigFile(text, path, defaults);
}

export function parseRoutingFile(text: string, file: string, defaults: RoutingDefaults): RoutingTable {
  return parseConfigFile(text, file, defaults).table;
}

export function parseConfigFile(text: string, file: string, defaults: RoutingDefaults): ConfigFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) {
    throw new RoutingFileError(
      file,
      doc.errors.slice(0, 5).map((error) => `line ${error.linePos?.[0].line ?? "?"}: ${error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "")}`),
    );
  }
  const where = (path: readonly PropertyKey[]) => {
    const line = lineOf(doc, lines, path);
    return `${formatPath(path)}${line ? ` (line ${line})` : ""}`;
  };
  const parsed = configFileSchema.safeParse(doc.toJS({ maxAliasCount: 100 }) ?? {});
  if (!parsed.success) throw new RoutingFileError(file, describeIssues(parsed.error.issues, where));
  const problems: string[] = [];
  const { prices = {}, limits = {}, ...routing } = parsed.data;
  const table = compileRouting(
    { ...routing, targets: routing.targets ?? [] },
    { timeoutMs: defaults.timeoutMs, secrets: "env", resolve: (name) => defaults.env[name] || undefined, tenant: false },
    (path, message) => problems.push(`${where(path)}: ${message}`),
  );
  if (problems.length > 0) throw new RoutingFileError(file, problems);
  return { table, prices, limits };
}

/** Zod's issues as sentences that name the key (and, where `where` knows it, the line). */
export function describeIssues(issues: z.core.$ZodIssue[], where: (path: readonly PropertyKey[]) => string): string[] {
  return issues.slice(0, 10).flatMap((issue) => {
    // An unknown key is named itself, at its own line.
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => `${where([...issue.path, key])}: unknown key (check its spelling)`);
    if (issue.code === "invalid_union") return [`${where(issue.path)}: expected a target's name or {name, weight, model}`];
    return [`${where(issue.path)}: ${issue.message}`];
  });
}

export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join("") || "(the file)";
}

/** The line of the deepest node on `path` that the document has (a missing key: its parent's line). */
function lineOf(doc: Document, lines: LineCounter, path: readonly PropertyKey[]): number | undefined {
  let node: unknown = doc.contents;
  let offset = (doc.contents as { range?: number[] } | null)?.range?.[0];
  for (const part of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(part));
      if (!pair) break;
      offset = (pair.key as { range?: number[] }).range?.[0] ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof part === "number" && node.items[part]) {
      node = node.items[part];
      offset = (node as { range?: number[] }).range?.[0] ?? offset;
    } else break;
  }
  return offset === undefined ? undefined : lines.linePos(offset).line;
}
