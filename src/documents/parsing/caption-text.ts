/** Captions of tables and figures: "Table 2: Prices", "Figure 3 – Overview", "Table 1". */

// The number must be followed by a separator or end the text, so "Table 3 shows that..." stays a sentence.
const CAPTION = /^(table|tab\.|figure|fig\.|chart|exhibit|listing)\s*\d+[a-z]?(?:\.\d+)*\s*(?:[:.\-–—]|$)/i;
const FIGURE_CAPTION = /^(figure|fig\.|chart|exhibit)/i;

export function isCaptionText(text: string): boolean {
  return CAPTION.test(text.trim()) && text.split(/\s+/).length <= 40;
}

/** A caption that belongs to a figure, so it must not be attached to a neighbouring table. */
export function isFigureCaption(text: string): boolean {
  return FIGURE_CAPTION.test(text.trim());
}
