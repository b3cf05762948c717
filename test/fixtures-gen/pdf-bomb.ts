/**
 * A PDF Flate bomb: one page whose content stream (a valid run of text operators, repeated)
 * inflates to `inflatedBytes`, zlib-compressed as a stream so the test never holds it whole.
 */
import { Zlib } from "fflate";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";

export async function pdfFlateBomb(inflatedBytes: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  page.setFont(font);
  page.drawText("A page whose content stream is far larger than it looks.", { x: 72, y: 720, size: 12 });
  const compressed: Uint8Array[] = [];
  const zlib = new Zlib({ level: 9 }, (chunk) => compressed.push(chunk));
  const block = new TextEncoder().encode("BT /F1 12 Tf 72 700 Td (All work and no play.) Tj ET\n".repeat(20_000));
  for (let written = 0; written < inflatedBytes; written += block.length) zlib.push(block);
  zlib.push(new Uint8Array(0), true);
  const stream = doc.context.stream(Buffer.concat(compressed), { Filter: "FlateDecode" });
  page.node.set(PDFName.of("Contents"), doc.context.register(stream));
  return doc.save({ useObjectStreams: false });
}
