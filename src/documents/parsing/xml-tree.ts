/**
 * The XML parts of OOXML and EPUB containers as a small element tree (fast-xml-parser in
 * document order), with the few lookups the parsers need. Namespace prefixes are kept as
 * written ("a:t", "p:sp"): every producer uses the standard prefixes for these parts.
 */
import { XMLParser } from "fast-xml-parser";
import { CorruptFileError } from "./errors.ts";

export type XmlElement = { name: string; attrs: Record<string, string>; children: XmlElement[]; text: string };

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseAttributeValue: false,
  parseTagValue: false,
  trimValues: false,
  processEntities: true,
  htmlEntities: true,
});

type OrderedNode = Record<string, unknown> & { ":@"?: Record<string, string> };

/** A synthetic root element whose children are the document's top-level elements. */
export function parseXml(xml: string, part: string): XmlElement {
  let nodes: OrderedNode[];
  try {
    nodes = parser.parse(xml) as OrderedNode[];
  } catch (error) {
    throw new CorruptFileError(`${part} is not well-formed XML (${(error as Error).message})`);
  }
  return { name: "#document", attrs: {}, children: toElements(nodes), text: "" };
}

function toElements(nodes: OrderedNode[]): XmlElement[] {
  const elements: XmlElement[] = [];
  for (const node of nodes) {
    for (const key of Object.keys(node)) {
      if (key === ":@") continue;
      if (key === "#text") {
        elements.push({ name: "#text", attrs: {}, children: [], text: String(node[key]) });
        continue;
      }
      if (key.startsWith("?")) continue;
      elements.push({ name: key, attrs: node[":@"] ?? {}, children: toElements((node[key] as OrderedNode[]) ?? []), text: "" });
    }
  }
  return elements;
}

/** Direct children named `name`. */
export const childrenNamed = (element: XmlElement, name: string) => element.children.filter((child) => child.name === name);

export const childNamed = (element: XmlElement, name: string): XmlElement | undefined => element.children.find((child) => child.name === name);

/** Descendants named `name`, in document order (nested matches included: an NCX nests navPoints). */
export function descendantsNamed(element: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = [];
  const visit = (node: XmlElement) => {
    for (const child of node.children) {
      if (child.name === name) found.push(child);
      visit(child);
    }
  };
  visit(element);
  return found;
}

export const descendantNamed = (element: XmlElement, name: string): XmlElement | undefined => descendantsNamed(element, name)[0];

/** Concatenated text of the descendants named `textElement` ("a:t", "t"), or of every text node. */
export function textOf(element: XmlElement, textElement?: string): string {
  if (!textElement) return element.name === "#text" ? element.text : element.children.map((child) => textOf(child)).join("");
  return descendantsNamed(element, textElement).map((t) => textOf(t)).join("");
}

/** Local name without the namespace prefix. */
export const localName = (name: string) => name.slice(name.indexOf(":") + 1);
