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
 * - Memory and time stay proportional to the text: a unit longer than `maxChars` enters as
 *   windows (windowPieces), a chunk never holds more than `maxChars` characters, and each unit is
 *   counted once: the sum of the held units' counts decides, and the whole chunk is counted again
 *   only when that sum is within EXACT_MARGIN tokens of chunkSize (joining units with whitespace
 *   adds their wordpiece counts, so the sum is exact there; the margin covers joins inside words).
 */
import { cutsByLine, cutUnit, joinedLength, joinUnits, refineUnit, splitUnit, windowPieces, type Unit } from "./units.ts";

/** Around chunkSize, within this many tokens, the joined chunk is counted instead of summed. */
export const EXACT_MARGIN = 3;

export type PackerSettings = {
  chunkSize: number;
  chunkOverlap: number;
  countTokens: (text: string) => number;
  /** Semantic strategy: a topic shift is honoured only once the chunk holds this many tokens. */
  minTopicTokens: number;
  /** Most characters in one chunk (and in one window of an over-long unit). */
  maxChars: number;
};

export class ChunkPacker {
  private units: Unit[] = [];
  /** Token sum and joined length of `units`; dropped whenever `units` is replaced. */
  private held: { tokens: number; chars: number } | null = null;
  private readonly unitTokens = new WeakMap<Unit, number>();

  constructor(
    private readonly settings: PackerSettings,
    private readonly emit: (units: Unit[]) => void,
  ) {}

  add(unit: Unit): void {
    if (unit.topicShift && this.hasContent() && this.heldTotals().tokens >= this.settings.minTopicTokens) this.close(false);
    for (const window of windowPieces(unit, this.settings.maxChars)) this.place(window);
  }

  private place(unit: Unit): void {
    // A stack, next unit on top: cutting a unit pushes its pieces back in order.
    const pending = [unit];
    while (pending.length > 0) {
      const next = pending.pop()!;
      if (this.fits(next)) {
        this.hold(next);
      } else if (this.hasContent() && !next.continuation) {
        this.close(true);
        pending.push(next);
      } else if (this.hasOverlap() && this.fitsWithoutOverlap(next)) {
        this.replaceUnits(this.units.filter((held) => held.role !== "overlap"));
        this.hold(next);
      } else {
        pending.push(...this.cutToFit(next).reverse());
      }
    }
  }

  /** A new section starts: close the chunk, but carry headings that still wait for content. */
  sectionBreak(): void {
    if (this.hasContent()) this.close(false);
    else this.replaceUnits(this.units.filter((held) => held.role === "heading"));
  }

  /** A table comes next: close the chunk and hand over the headings waiting for content, which go with the table. */
  tableBreak(): Unit[] {
    if (this.hasContent()) this.close(false);
    const headings = this.units.filter((held) => held.role === "heading");
    this.replaceUnits([]);
    return headings;
  }

  /**
   * Whether add(unit) would keep the unit whole: beside the content when it fits there, else in a
   * chunk of its own; with no content yet, beside the headings that wait for content (overlap is
   * dropped when it is in the way).
   */
  keepsWhole(unit: Unit): boolean {
    const units = this.hasContent() ? [unit] : [...this.units.filter((held) => held.role === "heading"), unit];
    return joinedLength(units) <= this.settings.maxChars && this.settings.countTokens(joinUnits(units)) <= this.settings.chunkSize;
  }

  /** End of document: headings with no content after them still become a chunk, so no text is lost. */
  finish(): void {
    if (this.hasContent() || this.units.some((held) => held.role === "heading")) this.close(false);
    this.replaceUnits([]);
  }

  private hasContent(): boolean {
    return this.units.some((held) => held.role === "content");
  }

  private hasOverlap(): boolean {
    return this.units.some((held) => held.role === "overlap");
  }

  private hold(unit: Unit): void {
    const held = this.heldTotals();
    held.chars += (this.units.length > 0 ? unit.joiner.length : 0) + unit.text.length;
    held.tokens += this.tokensOf(unit);
    this.units.push(unit);
  }

  private replaceUnits(units: Unit[]): void {
    this.units = units;
    this.held = null;
  }

  private heldTotals(): { tokens: number; chars: number } {
    this.held ??= {
      tokens: this.units.reduce((sum, unit) => sum + this.tokensOf(unit), 0),
      chars: joinedLength(this.units),
    };
    return this.held;
  }

  private tokensOf(unit: Unit): number {
    let tokens = this.unitTokens.get(unit);
    if (tokens === undefined) this.unitTokens.set(unit, (tokens = this.settings.countTokens(unit.text)));
    return tokens;
  }

  private fits(unit: Unit): boolean {
    const held = this.heldTotals();
    if (held.chars + (this.units.length > 0 ? unit.joiner.length : 0) + unit.text.length > this.settings.maxChars) return false;
    return this.within(() => [...this.units, unit], held.tokens + this.tokensOf(unit), this.settings.chunkSize);
  }

  /** Whether the units joined count at most `limit` tokens, given the sum of their own counts (the units are only listed near the limit). */
  private within(units: () => Unit[], sum: number, limit: number): boolean {
    if (sum <= limit - EXACT_MARGIN) return true;
    if (sum > limit + EXACT_MARGIN) return false;
    return this.settings.countTokens(joinUnits(units())) <= limit;
  }

  private fitsWithoutOverlap(unit: Unit): boolean {
    const kept = [...this.units.filter((held) => held.role !== "overlap"), unit];
    if (joinedLength(kept) > this.settings.maxChars) return false;
    return this.settings.countTokens(joinUnits(kept)) <= this.settings.chunkSize;
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
      this.replaceUnits(this.units.filter((held) => held.role !== "overlap"));
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
      if (this.fits({ ...unit, text: codePoints.slice(0, middle).join("") })) low = middle;
      else high = middle - 1;
    }
    return codePoints.slice(0, low).join("").length;
  }

  private close(withOverlap: boolean): void {
    const overlap = withOverlap ? this.overlapTail() : [];
    this.emit(this.units);
    this.replaceUnits(overlap);
  }

  /** The chunk's trailing sentences (lines for code) within chunkOverlap tokens; trailing words if no sentence fits. */
  private overlapTail(): Unit[] {
    const { chunkOverlap } = this.settings;
    if (chunkOverlap === 0) return [];
    const content = this.units.filter((held) => held.role === "content");
    const tail: Unit[] = [];
    let tokens = 0;
    for (const unit of [...content].reverse()) {
      const pieces = unit.level === "char" || unit.level === "word" ? [unit] : splitUnit(unit, cutsByLine(unit) ? "line" : "sentence");
      for (const piece of pieces.reverse()) {
        tokens += this.tokensOf(piece);
        if (!this.within(() => [piece, ...tail], tokens, chunkOverlap)) return asOverlap(tail.length > 0 ? tail : this.trailingWords(content.at(-1)!));
        tail.unshift(piece);
      }
    }
    return asOverlap(tail);
  }

  private trailingWords(unit: Unit): Unit[] {
    if (cutsByLine(unit)) return [];
    const tail: Unit[] = [];
    let tokens = 0;
    for (const word of splitUnit(unit, "word").reverse()) {
      tokens += this.tokensOf(word);
      if (!this.within(() => [word, ...tail], tokens, this.settings.chunkOverlap)) break;
      tail.unshift(word);
    }
    return tail;
  }
}

function asOverlap(units: Unit[]): Unit[] {
  return units.map((unit) => ({ ...unit, role: "overlap", topicShift: false }));
}
