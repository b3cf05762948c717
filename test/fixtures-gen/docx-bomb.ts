/**
 * DOCX zip bombs: a real .docx whose word/document.xml is replaced by `inflatedBytes` of valid,
 * highly repetitive WordprocessingML, deflated as a stream (never held whole in memory).
 * `declareSmall` writes a false (tiny) uncompressed size into the zip headers, as an attacker would.
 */
import { Zip, ZipDeflate, ZipPassThrough, unzipSync } from "fflate";
import { makeDocx } from "./make-docx";

const HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const TAIL = "</w:body></w:document>";
const PARAGRAPH = "<w:p><w:r><w:t>All work and no play makes a dull document.</w:t></w:r></w:p>";

export async function docxBomb(inflatedBytes: number, { declareSmall = false } = {}): Promise<Uint8Array> {
  const template = unzipSync(await makeDocx([{ paragraph: "template" }]));
  const out: Uint8Array[] = [];
  const zip = new Zip((error, data) => {
    if (error) throw error;
    out.push(data);
  });
  for (const [name, content] of Object.entries(template)) {
    if (name === "word/document.xml") continue;
    const entry = new ZipPassThrough(name);
    zip.add(entry);
    entry.push(content, true);
  }
  const document = new ZipDeflate("word/document.xml", { level: 9 });
  zip.add(document);
  const encoder = new TextEncoder();
  document.push(encoder.encode(HEAD));
  const block = encoder.encode(PARAGRAPH.repeat(Math.floor((1024 * 1024) / PARAGRAPH.length)));
  for (let written = HEAD.length; written < inflatedBytes; written += block.length) document.push(block);
  document.push(encoder.encode(TAIL), true);
  zip.end();
  const bytes = new Uint8Array(Buffer.concat(out));
  if (declareSmall) declareUncompressedSize(bytes, "word/document.xml", 4096);
  return bytes;
}

/** Overwrites the entry's uncompressed size in the central directory (streamed entries have none in their local header). */
function declareUncompressedSize(zip: Uint8Array, name: string, size: number): void {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const encodedName = new TextEncoder().encode(name);
  for (let at = 0; at + 46 < zip.length; at++) {
    if (view.getUint32(at, true) !== 0x02014b50) continue;
    const nameLength = view.getUint16(at + 28, true);
    if (Buffer.from(zip.subarray(at + 46, at + 46 + nameLength)).equals(encodedName)) view.setUint32(at + 24, size, true);
  }
}
