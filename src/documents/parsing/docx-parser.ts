/** DOCX → HTML (mammoth, which maps Word heading styles to h1..h6 and keeps tables) → blocks. */
import mammoth from "mammoth";
import { CorruptFileError } from "./errors.ts";
import { parseHtml } from "./html-parser.ts";
import { docxInflationLimit, type DecompressionLimits } from "./limits.ts";
import { repackWithinLimits } from "./safe-unzip.ts";
import type { Block } from "./types.ts";

// Word's built-in Caption style, so table captions stay captions; the preformatted paragraph
// styles of Word ("HTML Preformatted"), LibreOffice ("Preformatted Text") and common templates
// ("Code"), so a code listing stays one code block instead of a paragraph per line.
const STYLE_MAP = [
  "p[style-name='Caption'] => p.caption:fresh",
  ...["HTML Preformatted", "Preformatted Text", "Code", "Source Code"].map((style) => `p[style-name='${style}'] => pre:separator('\n')`),
];

/**
 * The parts mammoth parses (XML and relationships). Media and embedded objects are left empty:
 * mammoth reads an image only to inline it, and the blocks keep no images.
 */
const isMarkupPart = (name: string) => /\.(xml|rels)$/i.test(name);

export async function parseDocx(bytes: Uint8Array, limits: DecompressionLimits): Promise<Block[]> {
  // Mammoth inflates whatever the zip holds: it only ever sees entries already inflated within the limits.
  const checked = repackWithinLimits(bytes, docxInflationLimit(limits), isMarkupPart);
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ buffer: Buffer.from(checked) }, { styleMap: STYLE_MAP });
    html = result.value;
  } catch (error) {
    throw new CorruptFileError(`The .docx cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseHtml(html, { firstRowIsHeader: true });
}
