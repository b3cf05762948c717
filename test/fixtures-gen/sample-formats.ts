/** The sample slide deck, workbook, e-mail and e-book the format tests and eval:documents upload. */
import { makeEml, makeMsg, type TestEmail } from "./make-email";
import { makeEpub, makePptx, makeXlsx } from "./make-ooxml";

export const SAMPLE_EMAIL: TestEmail = {
  from: { name: "Ada Lovelace", address: "ada@example.org" },
  to: [{ name: "Charles Babbage", address: "charles@example.org" }],
  cc: [{ name: "Mary Somerville", address: "mary@example.org" }],
  date: new Date("2024-03-05T10:15:00Z"),
  subject: "Analytical Engine — budget review",
  html: "<html><body><h2>Budget</h2><p>The <b>difference engine</b> overran its budget by 17000 pounds, mostly on precision gears.</p><ul><li>Gears from Clement's workshop</li><li>Labour for the drawings</li></ul></body></html>",
  text: "The difference engine overran its budget by 17000 pounds, mostly on precision gears.",
  attachments: [{ filename: "budget.csv", mimeType: "text/csv", content: "item,cost\ngears,12000\nlabour,5000\n" }],
};

export const sampleEml = () => ({ filename: "budget-review.eml", bytes: new TextEncoder().encode(makeEml(SAMPLE_EMAIL)) });
export const sampleMsg = () => ({ filename: "budget-review.msg", bytes: makeMsg(SAMPLE_EMAIL) });

/** Sales rows: a header, `rows` data rows; sheet two is a small price list with a merged title and formulas. */
export function sampleXlsx(rows = 300) {
  const sales = [["Region", "Quarter", "Product", "Units", "Revenue"], ...Array.from({ length: rows }, (_, i) => [`Region ${i % 7}`, `Q${(i % 4) + 1}`, `Product line ${i}`, 10 + i, { formula: `D${i + 2}*12`, value: (10 + i) * 12 }])];
  return {
    filename: "sales.xlsx",
    bytes: makeXlsx([
      { name: "Sales", rows: sales },
      { name: "Prices", rows: [["Price list 2025", null, null], ["Item", "Unit price", "Price with tax"], ["Gear", 3, { formula: "B3*1.2", value: 3.6 }], ["Lever", 5, { formula: "B4*1.2", value: 6 }]], merges: ["A1:C1"] },
    ]),
  };
}

export function sampleCsv(rows = 300) {
  const lines = ["city;country;population;note", ...Array.from({ length: rows }, (_, i) => `City ${i};Country ${i % 12};${1000 + i * 37};"a note; with the delimiter, and ""quotes"" ${i}"`)];
  return { filename: "cities.csv", bytes: new TextEncoder().encode(lines.join("\r\n")) };
}

export function samplePptx() {
  return {
    filename: "roadmap.pptx",
    bytes: makePptx([
      { title: "Roadmap 2025", bullets: ["Ship semantic search to every workspace", "Chunking controls per upload"], notes: "Mention that the Q3 date moved because of the tokenizer work.", slideNumber: true },
      { title: "Team sizes", table: [["Team", "Engineers", "Designers"], ["Core", "5", "1"], ["Documents", "3", "0"]], slideNumber: true },
      { bullets: ["A slide without a title still gets a section of its own"], slideNumber: true },
    ]),
  };
}

export function sampleEpub() {
  return {
    filename: "voyage.epub",
    bytes: makeEpub("The Voyage", [
      { title: "Departure", body: "<p>The ship left the harbour at dawn, its hold full of instruments for measuring the stars.</p>" },
      { title: "Storm", body: "<h1>The Storm</h1><p>On the third day a storm broke the mainmast.</p><h2>Repairs</h2><p>The carpenter worked through the night.</p>" },
      { title: "Arrival", body: "<p>They reached the island a month late, and the astronomers began their observations.</p>" },
    ]),
  };
}
