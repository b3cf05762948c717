/** DOCX → HTML (mammoth, which maps Word heading styles to h1..h6 and keeps tables) → blocks. */
import mammoth from "mammoth";
import { CorruptFileError } from "./errors.ts";
import { parseHtml } from "./html-parser.ts";
import type { Block } from "./types.ts";

// Word's built-in Caption style, so table captions stay captions; the preformatted paragraph
// styles of Word ("HTML Preformatted"), LibreOffice ("Preformatted Text") and common templates
// ("Code"), so a code listing stays one code block instead of a paragraph per line.
const STYLE_MAP = [
  "p[style-name='Caption'] => p.caption:fresh",
  ...["HTML Preformatted", "Preformatted Text", "Code", "Source Code"].map((style) => `p[style-name='${style}'] => pre:separator('\n')`),
];

export async function parseDocx(bytes: Uint8Array): Promise<Block[]> {
  let html: string;
  try {
    const result = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) }, { styleMap: STYLE_MAP });
    html = result.value;
  } catch (error) {
    throw new CorruptFileError(`The .docx cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseHtml(html, { firstRowIsHeader: true });
}
