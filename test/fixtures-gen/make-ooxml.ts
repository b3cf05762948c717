/**
 * Writes real .xlsx, .pptx and .epub files: the parts and relationships Excel, PowerPoint and EPUB
 * readers require, zipped with fflate. No office suite is installed on the machines this runs
 * on, so these follow the ECMA-376 / EPUB 3 layouts by hand (as Excel and LibreOffice write
 * them: shared strings, formulas with cached values, merged ranges, slide layouts, notes slides).
 */
import { strToU8, zipSync } from "fflate";

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function zip(parts: Record<string, string>, stored: string[] = []): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(parts).map(([name, text]) => [name, [strToU8(text), { level: stored.includes(name) ? 0 : 6 }]])));
}

function relationships(rels: { id: string; type: string; target: string }[]): string {
  return `${XML_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels
    .map((rel) => `<Relationship Id="${rel.id}" Type="${REL_NS}/${rel.type}" Target="${esc(rel.target)}"/>`)
    .join("")}</Relationships>`;
}

function contentTypes(overrides: Record<string, string>): string {
  return `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${Object.entries(
    overrides,
  )
    .map(([part, type]) => `<Override PartName="/${part}" ContentType="${type}"/>`)
    .join("")}</Types>`;
}

/** A cell: text (a shared string), a number, or a formula with its cached value. */
export type XlsxCell = string | number | { formula: string; value: number | string } | null;
export type XlsxSheet = { name: string; rows: XlsxCell[][]; merges?: string[] };

export function makeXlsx(sheets: XlsxSheet[]): Uint8Array {
  const strings: string[] = [];
  const stringIndex = (text: string) => {
    const at = strings.indexOf(text);
    return at >= 0 ? at : strings.push(text) - 1;
  };
  const column = (i: number): string => (i < 26 ? String.fromCharCode(65 + i) : column(Math.floor(i / 26) - 1) + String.fromCharCode(65 + (i % 26)));
  const cellXml = (cell: XlsxCell, ref: string): string => {
    if (cell === null) return "";
    if (typeof cell === "number") return `<c r="${ref}"><v>${cell}</v></c>`;
    if (typeof cell === "string") return `<c r="${ref}" t="s"><v>${stringIndex(cell)}</v></c>`;
    const type = typeof cell.value === "string" ? ' t="str"' : "";
    return `<c r="${ref}"${type}><f>${esc(cell.formula)}</f><v>${esc(String(cell.value))}</v></c>`;
  };
  const parts: Record<string, string> = {};
  const overrides: Record<string, string> = { "xl/workbook.xml": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml" };
  sheets.forEach((sheet, i) => {
    const rows = sheet.rows.map((row, r) => `<row r="${r + 1}">${row.map((cell, c) => cellXml(cell, `${column(c)}${r + 1}`)).join("")}</row>`).join("");
    const merges = sheet.merges?.length ? `<mergeCells count="${sheet.merges.length}">${sheet.merges.map((ref) => `<mergeCell ref="${ref}"/>`).join("")}</mergeCells>` : "";
    parts[`xl/worksheets/sheet${i + 1}.xml`] = `${XML_HEAD}<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL_NS}"><sheetData>${rows}</sheetData>${merges}</worksheet>`;
    overrides[`xl/worksheets/sheet${i + 1}.xml`] = "application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml";
  });
  parts["xl/sharedStrings.xml"] = `${XML_HEAD}<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${strings.length}" uniqueCount="${strings.length}">${strings
    .map((text) => `<si><t xml:space="preserve">${esc(text)}</t></si>`)
    .join("")}</sst>`;
  overrides["xl/sharedStrings.xml"] = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml";
  parts["xl/workbook.xml"] = `${XML_HEAD}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${REL_NS}"><sheets>${sheets
    .map((sheet, i) => `<sheet name="${esc(sheet.name)}" sheetId="${i + 1}" r:id="rId${i + 1}"/>`)
    .join("")}</sheets></workbook>`;
  parts["xl/_rels/workbook.xml.rels"] = relationships([
    ...sheets.map((_, i) => ({ id: `rId${i + 1}`, type: "worksheet", target: `worksheets/sheet${i + 1}.xml` })),
    { id: `rId${sheets.length + 1}`, type: "sharedStrings", target: "sharedStrings.xml" },
  ]);
  parts["_rels/.rels"] = relationships([{ id: "rId1", type: "officeDocument", target: "xl/workbook.xml" }]);
  parts["[Content_Types].xml"] = contentTypes(overrides);
  return zip(parts);
}

export type PptxSlide = {
  title?: string;
  /** Body text boxes, one string per paragraph. */
  bullets?: string[];
  /** First row is the header. */
  table?: string[][];
  notes?: string;
  /** Drawn in the slide-number placeholder: page furniture. */
  slideNumber?: boolean;
};

export function makePptx(slides: PptxSlide[]): Uint8Array {
  const ns = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${REL_NS}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`;
  let shapeId = 1;
  const shape = (placeholder: string | null, paragraphs: string[]) =>
    `<p:sp><p:nvSpPr><p:cNvPr id="${++shapeId}" name="Shape ${shapeId}"/><p:cNvSpPr/><p:nvPr>${placeholder ? `<p:ph type="${placeholder}"/>` : ""}</p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/>${paragraphs
      .map((text) => `<a:p><a:r><a:rPr lang="en-US"/><a:t>${esc(text)}</a:t></a:r></a:p>`)
      .join("")}</p:txBody></p:sp>`;
  const table = (rows: string[][]) =>
    `<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="${++shapeId}" name="Table ${shapeId}"/><p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table"><a:tbl><a:tblGrid>${rows[0]
      .map(() => '<a:gridCol w="1000000"/>')
      .join("")}</a:tblGrid>${rows
      .map((row) => `<a:tr h="300000">${row.map((cell) => `<a:tc><a:txBody><a:bodyPr/><a:p><a:r><a:t>${esc(cell)}</a:t></a:r></a:p></a:txBody></a:tc>`).join("")}</a:tr>`)
      .join("")}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>`;
  const tree = (content: string) => `<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/>${content}</p:spTree></p:cSld>`;
  const parts: Record<string, string> = {};
  const overrides: Record<string, string> = { "ppt/presentation.xml": "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml" };
  slides.forEach((slide, i) => {
    const n = i + 1;
    const content = [
      slide.title ? shape("title", [slide.title]) : "",
      slide.bullets ? shape("body", slide.bullets) : "",
      slide.table ? table(slide.table) : "",
      slide.slideNumber ? shape("sldNum", [String(n)]) : "",
    ].join("");
    parts[`ppt/slides/slide${n}.xml`] = `${XML_HEAD}<p:sld ${ns}>${tree(content)}</p:sld>`;
    overrides[`ppt/slides/slide${n}.xml`] = "application/vnd.openxmlformats-officedocument.presentationml.slide+xml";
    const slideRels = [{ id: "rId1", type: "slideLayout", target: "../slideLayouts/slideLayout1.xml" }];
    if (slide.notes) {
      slideRels.push({ id: "rId2", type: "notesSlide", target: `../notesSlides/notesSlide${n}.xml` });
      parts[`ppt/notesSlides/notesSlide${n}.xml`] = `${XML_HEAD}<p:notes ${ns}>${tree(shape("sldImg", []) + shape("body", slide.notes.split("\n")))}</p:notes>`;
      parts[`ppt/notesSlides/_rels/notesSlide${n}.xml.rels`] = relationships([{ id: "rId1", type: "slide", target: `../slides/slide${n}.xml` }]);
      overrides[`ppt/notesSlides/notesSlide${n}.xml`] = "application/vnd.openxmlformats-officedocument.presentationml.notesSlide+xml";
    }
    parts[`ppt/slides/_rels/slide${n}.xml.rels`] = relationships(slideRels);
  });
  parts["ppt/slideLayouts/slideLayout1.xml"] = `${XML_HEAD}<p:sldLayout ${ns}>${tree("")}</p:sldLayout>`;
  parts["ppt/presentation.xml"] = `${XML_HEAD}<p:presentation ${ns}><p:sldIdLst>${slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`).join("")}</p:sldIdLst><p:sldSz cx="9144000" cy="6858000"/></p:presentation>`;
  parts["ppt/_rels/presentation.xml.rels"] = relationships(slides.map((_, i) => ({ id: `rId${i + 1}`, type: "slide", target: `slides/slide${i + 1}.xml` })));
  parts["_rels/.rels"] = relationships([{ id: "rId1", type: "officeDocument", target: "ppt/presentation.xml" }]);
  parts["[Content_Types].xml"] = contentTypes(overrides);
  return zip(parts);
}

/** A chapter: its table-of-contents title and its XHTML body (headings optional). */
export type EpubChapter = { title: string; body: string };

export function makeEpub(title: string, chapters: EpubChapter[]): Uint8Array {
  const xhtml = (heading: string, body: string) =>
    `${XML_HEAD}<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><head><title>${esc(heading)}</title></head><body>${body}</body></html>`;
  const parts: Record<string, string> = { mimetype: "application/epub+zip" };
  parts["META-INF/container.xml"] = `${XML_HEAD}<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`;
  parts["OEBPS/nav.xhtml"] = xhtml("Contents", `<nav epub:type="toc"><ol>${chapters.map((chapter, i) => `<li><a href="text/ch${i + 1}.xhtml">${esc(chapter.title)}</a></li>`).join("")}</ol></nav>`);
  chapters.forEach((chapter, i) => (parts[`OEBPS/text/ch${i + 1}.xhtml`] = xhtml(chapter.title, chapter.body)));
  parts["OEBPS/content.opf"] = `${XML_HEAD}<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:uuid:sieve-test</dc:identifier><dc:title>${esc(title)}</dc:title><dc:language>en</dc:language></metadata><manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>${chapters
    .map((_, i) => `<item id="ch${i + 1}" href="text/ch${i + 1}.xhtml" media-type="application/xhtml+xml"/>`)
    .join("")}</manifest><spine>${chapters.map((_, i) => `<itemref idref="ch${i + 1}"/>`).join("")}</spine></package>`;
  // The mimetype entry must come first and be stored: readers sniff it at a fixed offset.
  return zip(parts, ["mimetype"]);
}
