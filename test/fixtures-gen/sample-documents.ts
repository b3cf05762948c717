/**
 * The documents the parsing and chunking tests share: a report as PDF and DOCX, plus HTML,
 * Markdown and Python sources, each returned as the bytes an upload would carry.
 */
import { makeDocx } from "./make-docx.ts";
import { makePdf } from "./make-pdf.ts";

export type SampleFile = { filename: string; bytes: Uint8Array };

const encode = (text: string) => new TextEncoder().encode(text);

const INTRODUCTION =
  "This report describes how the sampling campaign was planned and carried out. The campaign ran for six weeks in the northern valley. " +
  "Every site was visited twice, once in spring and once in autumn, so that seasonal effects could be separated from local ones.";
const BACKGROUND =
  "Earlier surveys relied on single visits and could not tell seasonal change from measurement noise. " +
  "The regional authority therefore asked for a repeated design with fixed sites and shared instruments.";
const SCOPE_BEFORE_TABLE =
  "The scope covers the twelve river sites listed in the annex. The table below gives the mass and volume of the reference samples.";
export const SCOPE_AFTER_TABLE =
  "All masses were measured on the same calibrated balance. Volumes were read from graduated cylinders at room temperature.";
const SCOPE_CONTINUED =
  "Samples that leaked during transport were discarded and collected again within three days, which kept the series complete.";
const RESULTS =
  "Spring samples were consistently heavier than autumn samples. The difference was largest at the upstream sites, where snow melt raises the sediment load.";
const CONCLUSION = "The repeated design separated seasonal effects from noise and should be kept for the next campaign.";

export const SAMPLE_TABLE = [
  ["Sample", "Mass (g)", "Volume (ml)"],
  ["A1", "12.5", "10.0"],
  ["B2", "14.1", "11.2"],
  ["C3", "9.8", "8.4"],
];

/** Three pages; section 2.1 runs from page 2 onto page 3; the table sits between two paragraphs. */
export async function samplePdf(): Promise<SampleFile> {
  const bytes = await makePdf([
    [
      { heading: "1 Introduction", level: 1 },
      { paragraph: INTRODUCTION },
      { heading: "1.1 Background", level: 2 },
      { paragraph: BACKGROUND },
    ],
    [
      { heading: "2 Methods", level: 1 },
      { heading: "2.1 Scope", level: 2 },
      { paragraph: SCOPE_BEFORE_TABLE },
      { caption: "Table 1: Reference samples" },
      { table: SAMPLE_TABLE },
      { paragraph: SCOPE_AFTER_TABLE },
    ],
    [
      { paragraph: SCOPE_CONTINUED },
      { heading: "2.2 Results", level: 2 },
      { paragraph: RESULTS },
      { heading: "3 Conclusion", level: 1 },
      { paragraph: CONCLUSION },
    ],
  ]);
  return { filename: "report.pdf", bytes };
}

export const PRICE_TABLE = [
  ["Item", "Quantity", "Unit price"],
  ["Apples", "40", "0.30"],
  ["Pears", "25", "0.45"],
  ["Plums", "60", "0.20"],
];
export const STOCK_TABLE = [
  ["Warehouse", "Pallets"],
  ["North", "12"],
  ["South", "7"],
];

/** Section 1.1 explains its table; section 2.1 holds nothing but a table (an orphan). */
export async function sampleDocx(): Promise<SampleFile> {
  const bytes = await makeDocx([
    { heading: "1 Overview", level: 1 },
    { paragraph: "This document lists the fruit prices agreed for the season." },
    { heading: "1.1 Prices", level: 2 },
    { paragraph: "Prices are per kilogram and include delivery to the market." },
    { caption: "Table 1: Fruit prices" },
    { table: PRICE_TABLE, markHeader: true },
    { heading: "2 Logistics", level: 1 },
    { paragraph: "Deliveries leave the warehouses every morning at six." },
    { heading: "2.1 Stock", level: 2 },
    { table: STOCK_TABLE },
    { heading: "2.2 Contacts", level: 2 },
    { bullets: ["Anna Berg, logistics", "Tom Lund, purchasing"] },
  ]);
  return { filename: "prices.docx", bytes };
}

export function sampleHtml(): SampleFile {
  return {
    filename: "guide.html",
    bytes: encode(`<!doctype html>
<html><head><title>Guide</title><style>p { color: red }</style><script>var ignored = "<p>not text</p>";</script></head>
<body>
  <nav><a href="/">Home</a> <a href="/about">About</a></nav>
  <article>
    <h1>1 Getting started</h1>
    <p>Install the tool with the package manager of your system. It needs no configuration to run.</p>
    <h2>1.1 Options</h2>
    <p>The options below change how the tool behaves &amp; what it prints.</p>
    <table>
      <caption>Table 1: Command-line options</caption>
      <thead><tr><th>Flag</th><th>Meaning</th></tr></thead>
      <tbody><tr><td>--quiet</td><td>Print nothing</td></tr><tr><td>--verbose</td><td>Print everything</td></tr></tbody>
    </table>
    <h2>1.2 Example</h2>
    <p>A minimal script looks like this:</p>
    <pre><code class="language-python">def main():
    print("hello")
</code></pre>
    <ul><li>Runs on Linux</li><li>Runs on macOS<ul><li>Intel and ARM</li></ul></li></ul>
  </article>
</body></html>`),
  };
}

export function sampleMarkdown(): SampleFile {
  return {
    filename: "notes.md",
    bytes: encode(`---
title: Notes
---
# 1 Setup

Clone the repository and install the dependencies.
The build takes about a minute on a laptop, see [the docs](https://example.org/docs).

## 1.1 Configuration

| Key | Default | Meaning |
|-----|---------|---------|
| port | 8080 | Port to listen on |
| host | localhost | Interface to bind |

## 1.2 Usage

Run the server with the script below.

\`\`\`bash
./run.sh --port 8080
\`\`\`

- first item
- second item

Setext title
============

Closing words.
`),
  };
}

export function samplePython(): SampleFile {
  return {
    filename: "tools.py",
    bytes: encode(`import os
import sys


def read_config(path):
    """Read the configuration file."""
    with open(path) as handle:

        return handle.read()


class Loader:
    def __init__(self, root):
        self.root = root

    def load(self, name):
        return os.path.join(self.root, name)


if __name__ == "__main__":
    print(read_config(sys.argv[1]))
`),
  };
}
