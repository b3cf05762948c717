// Small SVG charts drawn from data (no library). Each chart is a <figure> whose SVG carries a
// text summary for screen readers; colours come from CSS classes.

import { h, s } from "./dom.mjs";

const WIDTH = 600;
const MARGIN = { top: 12, right: 16, bottom: 34, left: 48 };

function figure(summary, caption, svg) {
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", summary);
  svg.prepend(s("title", {}, summary));
  return h("figure", { class: "chart" }, svg, h("figcaption", {}, caption));
}

// Drawn at its natural size (CSS only shrinks it to narrow screens), so text stays readable.
const frame = (height) => s("svg", { viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, class: "chart-svg" });

function axisLine(x1, y1, x2, y2) {
  return s("line", { x1, y1, x2, y2, class: "axis" });
}

const axisText = (x, y, text, anchor = "middle") => s("text", { x, y, "text-anchor": anchor, class: "axis-label" }, text);

/** Bins of equal integer width from 0 to the largest value (5 to 20 of them, about √n). */
export function binValues(values) {
  const largest = Math.max(0, ...values);
  const count = Math.max(5, Math.min(20, Math.ceil(Math.sqrt(values.length))));
  const width = Math.max(1, Math.ceil((largest + 1) / count));
  const bins = Array.from({ length: Math.ceil((largest + 1) / width) }, (_, i) => ({ from: i * width, to: (i + 1) * width, count: 0 }));
  for (const value of values) bins[Math.min(bins.length - 1, Math.floor(value / width))].count++;
  return bins;
}

/** Distribution of numbers (e.g. overhead ms) as a histogram. */
export function histogram(values, { unit, caption }) {
  const height = 200;
  const bins = binValues(values);
  const tallest = Math.max(1, ...bins.map((bin) => bin.count));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const barWidth = plotWidth / bins.length;
  const svg = frame(height);
  bins.forEach((bin, i) => {
    const barHeight = (bin.count / tallest) * plotHeight;
    const x = MARGIN.left + i * barWidth;
    svg.append(
      s(
        "rect",
        { x: x + 1, y: MARGIN.top + plotHeight - barHeight, width: Math.max(1, barWidth - 2), height: barHeight, class: "bar" },
        s("title", {}, `${bin.from}–${bin.to - 1} ${unit}: ${bin.count}`),
      ),
    );
  });
  const baseline = MARGIN.top + plotHeight;
  svg.append(axisLine(MARGIN.left, baseline, WIDTH - MARGIN.right, baseline), axisLine(MARGIN.left, MARGIN.top, MARGIN.left, baseline));
  svg.append(axisText(MARGIN.left - 6, MARGIN.top + 10, String(tallest), "end"), axisText(MARGIN.left - 6, baseline, "0", "end"));
  const ticks = Math.min(bins.length, 6);
  for (let t = 0; t <= ticks; t++) {
    const index = Math.round((t / ticks) * bins.length);
    svg.append(axisText(MARGIN.left + index * barWidth, baseline + 16, `${index * (bins[0].to - bins[0].from)}`));
  }
  svg.append(axisText(WIDTH - MARGIN.right, height - 2, unit, "end"));
  const summary = `Histogram of ${values.length} values in ${bins.length} bins of ${bins[0].to - bins[0].from} ${unit}; the fullest bin holds ${tallest}.`;
  return figure(summary, caption, svg);
}

/** Horizontal bars: [{ label, value, tone? }] (tone becomes a CSS class). */
export function barChart(items, { caption, unit = "" }) {
  const rowHeight = 26;
  const labelWidth = 170;
  const height = MARGIN.top + items.length * rowHeight + 8;
  const largest = Math.max(1e-9, ...items.map((item) => item.value));
  const shownText = (item) => item.display ?? `${item.value}${unit}`;
  const valueWidth = 12 + 7 * Math.max(...items.map((item) => shownText(item).length)); // room for the printed value
  const plotWidth = WIDTH - labelWidth - valueWidth;
  const svg = frame(height);
  items.forEach((item, i) => {
    const y = MARGIN.top + i * rowHeight;
    const barWidth = (item.value / largest) * plotWidth;
    const shown = shownText(item);
    svg.append(
      s("text", { x: labelWidth - 8, y: y + 16, "text-anchor": "end", class: "bar-label" }, item.label),
      s("rect", { x: labelWidth, y: y + 3, width: Math.max(item.value > 0 ? 2 : 0, barWidth), height: rowHeight - 8, class: `bar ${item.tone ? `tone-${item.tone}` : ""}` }, s("title", {}, `${item.label}: ${shown}`)),
      s("text", { x: labelWidth + barWidth + 6, y: y + 16, class: "bar-value" }, shown),
    );
  });
  const summary = items.map((item) => `${item.label}: ${shownText(item)}`).join("; ");
  return figure(summary || "No data", caption, svg);
}

/** A ratio over time: points [{ at: Date, ratio: 0..1, count }] as a line with dots. */
export function ratioOverTime(points, { caption, what }) {
  const height = 200;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const svg = frame(height);
  const first = points[0].at.getTime();
  const span = Math.max(1, points[points.length - 1].at.getTime() - first);
  const xOf = (point) => MARGIN.left + (points.length === 1 ? plotWidth / 2 : ((point.at.getTime() - first) / span) * plotWidth);
  const yOf = (point) => MARGIN.top + (1 - point.ratio) * plotHeight;
  const baseline = MARGIN.top + plotHeight;
  for (const level of [0, 0.5, 1]) {
    const y = MARGIN.top + (1 - level) * plotHeight;
    svg.append(s("line", { x1: MARGIN.left, y1: y, x2: WIDTH - MARGIN.right, y2: y, class: level === 0 ? "axis" : "grid" }), axisText(MARGIN.left - 6, y + 4, `${level * 100}%`, "end"));
  }
  svg.append(s("polyline", { points: points.map((point) => `${xOf(point)},${yOf(point)}`).join(" "), class: "line" }));
  for (const point of points) {
    svg.append(s("circle", { cx: xOf(point), cy: yOf(point), r: 3.5, class: "dot" }, s("title", {}, `${point.at.toLocaleString()}: ${(point.ratio * 100).toFixed(0)}% of ${point.count}`)));
  }
  if (points.length === 1) svg.append(axisText(xOf(points[0]), baseline + 18, points[0].at.toLocaleString()));
  else {
    svg.append(
      axisText(MARGIN.left, baseline + 18, points[0].at.toLocaleString(), "start"),
      axisText(WIDTH - MARGIN.right, baseline + 18, points[points.length - 1].at.toLocaleString(), "end"),
    );
  }
  const overall = points.reduce((sum, point) => sum + point.ratio * point.count, 0) / Math.max(1, points.reduce((sum, point) => sum + point.count, 0));
  const summary = `${what} over ${points.length} time buckets, overall ${(overall * 100).toFixed(1)}%.`;
  return figure(summary, caption, svg);
}
