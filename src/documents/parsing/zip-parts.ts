/**
 * An OOXML or EPUB container: its text parts inflated within the DOCX limits (safe-unzip.ts),
 * read as XML, with relationship targets resolved to part names. Media are neither inflated nor counted.
 */
import { strFromU8 } from "fflate";
import { CorruptFileError } from "./errors.ts";
import { docxInflationLimit, type DecompressionLimits } from "./limits.ts";
import { unzipWithinLimits } from "./safe-unzip.ts";
import { childrenNamed, parseXml, type XmlElement } from "./xml-tree.ts";

const isTextPart = (name: string) => /\.(xml|rels|xhtml|html|htm|opf|ncx|css)$/i.test(name);

export class ZipParts {
  readonly #files: Record<string, Uint8Array>;

  constructor(
    bytes: Uint8Array,
    limits: DecompressionLimits,
    readonly kind: string,
  ) {
    this.#files = unzipWithinLimits(bytes, docxInflationLimit(limits), isTextPart);
  }

  has(name: string): boolean {
    return this.#files[name] !== undefined && this.#files[name].length > 0;
  }

  text(name: string): string {
    const bytes = this.#files[name];
    if (!bytes) throw new CorruptFileError(`The ${this.kind} cannot be read: part ${name} is missing`);
    return strFromU8(bytes);
  }

  xml(name: string): XmlElement {
    return parseXml(this.text(name), name);
  }

  /** Relationship id → part name, for the part `source` (from its _rels/….rels), empty when it has none. */
  relationships(source: string): Map<string, { target: string; type: string }> {
    const slash = source.lastIndexOf("/");
    const dir = source.slice(0, slash + 1);
    const relsName = `${dir}_rels/${source.slice(slash + 1)}.rels`;
    const map = new Map<string, { target: string; type: string }>();
    if (!this.has(relsName)) return map;
    const root = childrenNamed(this.xml(relsName), "Relationships")[0];
    for (const rel of root ? childrenNamed(root, "Relationship") : []) {
      if (rel.attrs.TargetMode === "External") continue;
      map.set(rel.attrs.Id, { target: resolvePart(dir, rel.attrs.Target), type: rel.attrs.Type ?? "" });
    }
    return map;
  }
}

/** `target` relative to the folder `dir` ("ppt/slides/"), or absolute from the package root ("/xl/…"). */
export function resolvePart(dir: string, target: string): string {
  const path = decodeURIComponent(target.split("#")[0]);
  const segments = (path.startsWith("/") ? path.slice(1) : dir + path).split("/");
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === "..") out.pop();
    else if (segment !== "." && segment !== "") out.push(segment);
  }
  return out.join("/");
}
