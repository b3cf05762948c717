/**
 * Greedy packing of units into chunks of at most `chunkSize` tokens.
 *
 * - A unit that fits is appended. One that does not closes the chunk, unless the chunk has no
 *   content yet (only headings or overlap): then the unit itself is too big and is cut one level
 *   finer (block → sentences → words, code → lines) and, as a last resort, between characters.
 *   So headings always stay with the start of their content, and structure decides the cuts.
 * - A chunk closed for size hands its last sentences (lines for code), up to `chunkOverlap`
 *   tokens, to the next chunk as overlap. Overlap is dropped when the next unit would fit whole
 *   without it, and never crosses a section, a table or a topic shift.
 * - A unit marked as a topic shift closes the chunk once it holds `minTopicTokens` tokens.
 */
import { cutUnit, joinUnits, refineUnit, splitUnit, type Unit } from "./units.ts";

export type PackerSettings = {
  chunkSize: number;
  chunkOverlap: number;
  countTokens: (text: string) => number;
  /** Semantic strategy: a topic shift is honoured only once the chunk holds this many tokens. */
  minTopicTokens: number;
};

export class ChunkPacker {
  private units: Unit[] = [];

  constructor(
    private readonly settings: PackerSettings,
    private readonly emit: (units: Unit[]) => void,
  ) {}

  add(unit: Unit): void {
    if (unit.topicShift && this.hasContent() && this.tokensWith([]) >= this.settings.minTopicTokens) this.close(false);
    // A stack, next unit on top: cutting a unit pushes its pieces back in order.
    const pending = [unit];
    while (pending.length > 0) {
      const next = pending.pop()!;
      if (this.fits([next])) {
        this.units.push(next);
      } else if (this.hasContent()) {
        this.close(true);
        pending.push(next);
      } else if (this.hasOverlap() && this.fitsWithoutOverlap(next)) {
        this.units = this.units.filter((held) => held.role !== "overlap");
        this.units.push(next);
      } else {
        pending.push(...this.cutToFit(next).reverse());
      }
    }
  }

  /** A new section starts: close the chunk, but carry headings that still wait for content. */
  sectionBreak(): void {
    if (this.hasContent()) this.close(false);
    else this.units = this.units.filter((held) => held.role === "heading");
  }

  /** A table comes next: close the chunk and hand over the headings waiting for content, which go with the table. */
  tableBreak(): Unit[] {
    if (this.hasContent()) this.close(false);
    const headings = this.units.filter((held) => held.role === "heading");
    this.units = [];
    return headings;
  }

  /** End of document: headings with no content after them still become a chunk, so no text is lost. */
  finish(): void {
    if (this.hasContent() || this.units.some((held) => held.role === "heading")) this.close(false);
    this.units = [];
  }

  private hasContent(): boolean {
    return this.units.some((held) => held.role === "content");
  }

  private hasOverlap(): boolean {
    return this.units.some((held) => held.role === "overlap");
  }

  private tokensWith(extra: Unit[]): number {
    return this.settings.countTokens(joinUnits([...this.units, ...extra]));
  }

  private fits(extra: Unit[]): boolean {
    return this.tokensWith(extra) <= this.settings.chunkSize;
  }

  private fitsWithoutOverlap(unit: Unit): boolean {
    const kept = this.units.filter((held) => held.role !== "overlap");
    return this.settings.countTokens(joinUnits([...kept, unit])) <= this.settings.chunkSize;
  }

  /** The unit, cut so that its first piece can enter a chunk that has no content yet. */
  private cutToFit(unit: Unit): Unit[] {
    const finer = refineUnit(unit);
    if (finer) return finer;
    const length = this.longestFittingPrefix(unit);
    if (length > 0) return cutUnit(unit, length);
    // Not one character fits beside what the chunk holds: free the room (overlap first, then
    // headings, as a chunk of their own) and retry.
    if (this.hasOverlap()) {
      this.units = this.units.filter((held) => held.role !== "overlap");
      return [unit];
    }
    if (this.units.length > 0) {
      this.close(false);
      return [unit];
    }
    // Even one character alone counts more than chunkSize tokens: emit it anyway.
    return cutUnit(unit, Array.from(unit.text)[0].length);
  }

  /** Longest prefix (in whole code points) of the unit that fits; binary search over the length. */
  private longestFittingPrefix(unit: Unit): number {
    const codePoints = Array.from(unit.text);
    let low = 0;
    let high = codePoints.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.fits([{ ...unit, text: codePoints.slice(0, middle).join("") }])) low = middle;
      else high = middle - 1;
    }
    return codePoints.slice(0, low).join("").length;
  }

  private close(withOverlap: boolean): void {
    const overlap = withOverlap ? this.overlapTail() : [];
    this.emit(this.units);
    this.units = overlap;
  }

  /** The chunk's trailing sentences (lines for code) within chunkOverlap tokens; trailing words if no sentence fits. */
  private overlapTail(): Unit[] {
    const { chunkOverlap, countTokens } = this.settings;
    if (chunkOverlap === 0) return [];
    const content = this.units.filter((held) => held.role === "content");
    const tail: Unit[] = [];
    for (const unit of [...content].reverse()) {
      const pieces = unit.level === "char" || unit.level === "word" ? [unit] : splitUnit(unit, unit.isCode ? "line" : "sentence");
      for (const piece of pieces.reverse()) {
        if (countTokens(joinUnits([piece, ...tail])) > chunkOverlap) return asOverlap(tail.length > 0 ? tail : this.trailingWords(content.at(-1)!));
        tail.unshift(piece);
      }
    }
    return asOverlap(tail);
  }

  private trailingWords(unit: Unit): Unit[] {
    if (unit.isCode) return [];
    const tail: Unit[] = [];
    for (const word of splitUnit(unit, "word").reverse()) {
      if (this.settings.countTokens(joinUnits([word, ...tail])) > this.settings.chunkOverlap) break;
      tail.unshift(word);
    }
    return tail;
  }
}

function asOverlap(units: Unit[]): Unit[] {
  return units.map((unit) => ({ ...unit, role: "overlap", topicShift: false }));
}
