/**
 * The document as a flow of blocks, each tagged with the section it sits in (its heading path)
 * and its character offsets in the document text.
 */
import type { Block, ParsedDocument } from "../parsing/types.ts";

/** One section, shared by identity by every block in it, so a change of section is a change of object. */
export type Section = {
  /** Heading texts as written ("2 Methods", "2.1 Scope"), outermost first; empty before the first heading. */
  path: string[];
  /** From the deepest heading on the path that carries a number. */
  sectionNumber: string | null;
  /** Level of the deepest heading; null before the first heading. */
  headingLevel: number | null;
};

export type FlowItem = {
  block: Block;
  /** Position in doc.blocks. */
  index: number;
  /** Offsets of block.text in documentText(doc). */
  start: number;
  end: number;
  section: Section;
};

/** Blocks are joined by a blank line in the document text that chunk offsets refer to. */
export const BLOCK_SEPARATOR = "\n\n";

/** The text that `metadata.char_start` / `char_end` of every chunk index into. */
export function documentText(doc: ParsedDocument): string {
  return doc.blocks.map((block) => block.text).join(BLOCK_SEPARATOR);
}

export function buildSectionFlow(blocks: Block[]): FlowItem[] {
  let headings: { text: string; level: number; sectionNumber: string | null }[] = [];
  let section: Section = { path: [], sectionNumber: null, headingLevel: null };
  let offset = 0;
  return blocks.map((block, index) => {
    if (block.kind === "heading") {
      const level = block.level ?? 1;
      headings = [...headings.filter((heading) => heading.level < level), { text: block.text, level, sectionNumber: block.sectionNumber ?? null }];
      section = {
        path: headings.map((heading) => heading.text),
        sectionNumber: headings.findLast((heading) => heading.sectionNumber !== null)?.sectionNumber ?? null,
        headingLevel: level,
      };
    }
    const item: FlowItem = { block, index, start: offset, end: offset + block.text.length, section };
    offset = item.end + BLOCK_SEPARATOR.length;
    return item;
  });
}
