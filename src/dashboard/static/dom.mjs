// Element builders. Text always goes in as text nodes, never as HTML, so data from the API
// cannot become markup; attributes are set one by one (event handlers as functions only).

const SVG_NS = "http://www.w3.org/2000/svg";

function build(element, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(element.dataset, value);
    else if (name === "value" || name === "checked" || name === "selected") element[name] = value;
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children: nodes as they are, strings and numbers as text, arrays flattened, null skipped. */
export function append(parent, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** `h("a", { href: "#/x" }, "text", otherNode)` */
export const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);

/** Same for SVG elements (charts). */
export const s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

export function replaceChildren(parent, ...children) {
  parent.replaceChildren();
  return append(parent, ...children);
}

let idCounter = 0;
/** A unique id for label/for and aria-describedby pairs. */
export const uid = (prefix) => `${prefix}-${++idCounter}`;
