/**
 * Units are what the packer fills chunks with: a block, or a sentence, line, word or character
 * run cut from one when it does not fit. Each unit remembers where it came from.
 */
import { BLOCK_SEPARATOR, type FlowItem, type Section } from "./section-flow.ts";
import type { TableMetadata } from "./types.ts";
import { lineSpans, sentenceSpans, wordSpans, type Span } from "./text-spans.ts";

export type UnitLevel = "block" | "sentence" | "line" | "word" | "char";
type SplitLevel = "sentence" | "line" | "word";

export type Unit = {
  text: string;
  /** Offsets in the document text. */
  start: number;
  end: number;
  page: number | null;
  blockIndex: number;
  section: Section;
  /** Overlap units repeat the end of the previous chunk. */
  role: "heading" | "content" | "overlap";
  isCode: boolean;
  language?: string;
  /** From speaker notes. */
  notes?: boolean;
  /** A whole table kept inline in a text chunk (table_inline_max_tokens): its shape. */
  inlineTable?: TableMetadata;
  /** Read by OCR, with this confidence (0–1). */
  ocrConfidence?: number;
  level: UnitLevel;
  /** Whitespace that separates this unit from the one before it in a chunk. */
  joiner: string;
  /** Semantic strategy only: the topic shifts right before this unit. */
  topicShift: boolean;
  /** A window of an over-long unit after its first (see windowPieces): it goes on filling the chunk instead of starting one. */
  continuation: boolean;
};

export function blockUnit(item: FlowItem): Unit {
  const { block } = item;
  return {
    text: block.text,
    start: item.start,
    end: item.end,
    page: block.page,
    blockIndex: item.index,
    section: item.section,
    role: block.kind === "heading" ? "heading" : "content",
    isCode: block.kind === "code",
    ...(block.language ? { language: block.language } : {}),
    ...(block.notes ? { notes: true } : {}),
    ...(block.ocrConfidence !== undefined ? { ocrConfidence: block.ocrConfidence } : {}),
    level: "block",
    joiner: BLOCK_SEPARATOR,
    topicShift: false,
    continuation: false,
  };
}

/** Prose: block → sentences → words. Code: block → lines. Then only cutting characters is left. */
const FINER_LEVELS: Record<UnitLevel, SplitLevel[]> = {
  block: ["sentence", "word"],
  sentence: ["word"],
  line: [],
  word: [],
  char: [],
};
const CODE_FINER_LEVELS: Record<UnitLevel, SplitLevel[]> = { ...FINER_LEVELS, block: ["line"] };

/** Code and tables are cut between lines, never inside one. */
export const cutsByLine = (unit: Unit) => unit.isCode || unit.inlineTable !== undefined;

/** The unit cut one structural level finer, or null when only a cut between characters remains. */
export function refineUnit(unit: Unit): Unit[] | null {
  for (const level of (cutsByLine(unit) ? CODE_FINER_LEVELS : FINER_LEVELS)[unit.level]) {
    const pieces = splitUnit(unit, level);
    if (pieces.length > 1) return pieces;
  }
  return null;
}

export function splitUnit(unit: Unit, level: SplitLevel): Unit[] {
  const spans = level === "sentence" ? sentenceSpans(unit.text) : level === "line" ? lineSpans(unit.text) : wordSpans(unit.text);
  return spans.map((span, i) => pieceOf(unit, span, level, i === 0 ? unit.joiner : unit.text.slice(spans[i - 1].end, span.start)));
}

/** Cut a unit after `length` characters: the head keeps the joiner, the tail continues it directly. */
export function cutUnit(unit: Unit, length: number): [Unit, Unit] {
  return [
    pieceOf(unit, { start: 0, end: length }, "char", unit.joiner),
    pieceOf(unit, { start: length, end: unit.text.length }, "char", ""),
  ];
}

function pieceOf(unit: Unit, span: Span, level: UnitLevel, joiner: string): Unit {
  // A piece of a table is no longer the whole table its shape describes.
  const whole = span.start === 0 && span.end === unit.text.length;
  return { ...unit, inlineTable: whole ? unit.inlineTable : undefined, text: unit.text.slice(span.start, span.end), start: unit.start + span.start, end: unit.start + span.end, level, joiner, continuation: false };
}

/**
 * An over-long unit (a 10 MB paragraph) as consecutive windows of at most `maxChars`, cut at the
 * last sentence end (line end for code, else space) inside each window, produced one at a time:
 * splitting, counting and packing then only ever touch one window, never the whole text. Every
 * window after the first is a continuation. A unit within `maxChars` comes back as it is.
 */
export function* windowPieces(unit: Unit, maxChars: number): Generator<Unit> {
  const { text } = unit;
  if (text.length <= maxChars) {
    yield unit;
    return;
  }
  let joiner = unit.joiner;
  for (let start = 0; start < text.length; ) {
    const end = text.length - start <= maxChars ? text.length : windowEnd(text, start, maxChars, unit.isCode);
    yield { ...pieceOf(unit, { start, end }, unit.level, joiner), continuation: start > 0, topicShift: unit.topicShift && start === 0 };
    let next = end;
    while (next < text.length && /\s/.test(text[next])) next++;
    joiner = text.slice(end, next);
    start = next;
  }
}

function windowEnd(text: string, start: number, maxChars: number, isCode: boolean): number {
  const window = text.slice(start, start + maxChars);
  if (!isCode) {
    const sentences = sentenceSpans(window);
    if (sentences.length > 1) return start + sentences[sentences.length - 2].end;
  }
  const space = Math.max(window.lastIndexOf("\n"), isCode ? -1 : window.lastIndexOf(" "));
  if (space > 0) return start + space;
  // No break at all: cut between characters, never inside a surrogate pair.
  const end = start + maxChars;
  return /[\uD800-\uDBFF]/.test(text[end - 1]) ? end - 1 : end;
}

/** Length of joinUnits(units), without building it. */
export function joinedLength(units: Unit[]): number {
  return units.reduce((sum, unit, i) => sum + (i > 0 ? unit.joiner.length : 0) + unit.text.length, 0);
}

/** Units joined by their joiners: the text of a chunk. */
export function joinUnits(units: Unit[]): string {
  return units.map((unit, i) => (i === 0 ? unit.text : unit.joiner + unit.text)).join("");
}
