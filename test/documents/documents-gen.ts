/**
 * Generated Markdown documents for the document API tests: sections of prose from the dedup
 * tests' deterministic generator (no sentence repeats within one generator), plus edits.
 */
import { ProseGenerator } from "../dedup/fixtures/prose";

export type Section = { heading: string; paragraphs: string[][] };

export function makeSections(gen: ProseGenerator, count: number, headingWord = "Part", paragraphs = 2, sentences = 4): Section[] {
  return Array.from({ length: count }, (_, i) => ({
    heading: `${headingWord} ${i + 1}`,
    paragraphs: Array.from({ length: paragraphs }, () => gen.proseParagraph(sentences).sentences),
  }));
}

export function renderMarkdown(sections: Section[], preamble: string[] = []): string {
  const blocks = preamble.length > 0 ? [preamble.join(" ")] : [];
  for (const section of sections) blocks.push(`## ${section.heading}`, ...section.paragraphs.map((sentences) => sentences.join(" ")));
  return blocks.join("\n\n") + "\n";
}

/** A Markdown document of `sections` sections, each two paragraphs of four sentences. */
export function longMarkdown(seed: number, sections: number): string {
  return renderMarkdown(makeSections(new ProseGenerator(seed), sections));
}
