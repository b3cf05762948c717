/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests: every
 * line must be a HELP, a TYPE, a sample of a declared family, or blank. It throws, naming the
 * line, on anything a Prometheus server would reject or misread: bad names, bad escapes,
 * values that are not numbers, a family declared twice or after its samples, a duplicate
 * series, histogram buckets that are not cumulative or that disagree with _count.
 */
export type Scrape = {
  /** The sample's value, or 0 when the series does not exist (yet): counters start at 0. */
  value(name: string, labels?: Record<string, string>): number;
  /** The sum of every series of `name` whose labels include `labels`. */
  total(name: string, labels?: Record<string, string>): number;
  types: Map<string, string>;
  /** Every label value seen, for checks that nothing private leaked into one. */
  labelValues: Set<string>;
};

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);

export function parseExposition(text: string): Scrape {
  if (!text.endsWith("\n")) throw new Error("exposition must end with a newline");
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const sampled = new Set<string>();
  const samples = new Map<string, number>();
  const buckets: Bucket[] = [];
  const series: { name: string; labels: Record<string, string>; value: number }[] = [];
  const labelValues = new Set<string>();
  const lines = text.slice(0, -1).split("\n");

  lines.forEach((line, index) => {
    const fail = (why: string): never => {
      throw new Error(`line ${index + 1}: ${why}: ${JSON.stringify(line)}`);
    };
    if (line === "") return;
    if (line.startsWith("#")) {
      const meta = new RegExp(`^# (HELP|TYPE) (${NAME}) (.*)$`).exec(line);
      if (!meta) return line.startsWith("# HELP") || line.startsWith("# TYPE") ? fail("malformed HELP/TYPE") : undefined; // other comments are allowed
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (sampled.has(name)) fail(`${kind} after samples of ${name}`);
      if (kind === "HELP") {
        if (helps.has(name)) fail("second HELP");
        if (/\\[^\\n]/.test(rest.replace(/\\\\/g, ""))) fail("bad escape in HELP");
        helps.add(name);
      } else {
        if (types.has(name)) fail("second TYPE");
        if (!TYPES.has(rest)) fail("unknown type");
        types.set(name, rest);
      }
      return;
    }
    const match = SAMPLE.exec(line) ?? fail("not a sample");
    const [, name, labelText, valueText] = match as unknown as [string, string, string | undefined, string];
    const family = familyOf(name, types) ?? fail(`sample of an undeclared family`);
    sampled.add(family);
    const labels = parseLabels(labelText ?? "", fail);
    for (const value of Object.values(labels)) labelValues.add(value);
    const value = parseValue(valueText) ?? fail("value is not a number");
    const key = seriesKey(name, labels);
    if (samples.has(key)) fail("duplicate series");
    samples.set(key, value);
    series.push({ name, labels, value });
    if (name.endsWith("_bucket") && types.get(family) === "histogram") {
      const { le, ...series } = labels;
      const bound = le === undefined ? fail("bucket without le") : (parseValue(le) ?? fail("le is not a number"));
      buckets.push({ series: seriesKey(family, series), family, le: bound, count: value });
    }
  });

  checkHistograms(buckets, samples);
  return {
    value: (name, labels = {}) => samples.get(seriesKey(name, labels)) ?? 0,
    total: (name, labels = {}) =>
      series.filter((sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)).reduce((sum, sample) => sum + sample.value, 0),
    types,
    labelValues,
  };
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    const base = name.endsWith(suffix) ? name.slice(0, -suffix.length) : undefined;
    if (base && (types.get(base) === "histogram" || (types.get(base) === "summary" && suffix !== "_bucket"))) return base;
  }
  return undefined;
}

function parseLabels(text: string, fail: (why: string) => never): Record<string, string> {
  const labels: Record<string, string> = {};
  let at = 0;
  while (at < text.length) {
    const eq = text.indexOf("=", at);
    if (eq < 0) fail("label without =");
    const name = text.slice(at, eq);
    if (!LABEL_NAME.test(name) || name.startsWith("__")) fail(`bad label name ${name}`);
    if (name in labels) fail(`label ${name} twice`);
    if (text[eq + 1] !== '"') fail("label value not quoted");
    let value = "";
    let i = eq + 2;
    for (; i < text.length && text[i] !== '"'; i++) {
      if (text[i] === "\\") {
        const next = text[++i];
        if (next === "\\") value += "\\";
        else if (next === '"') value += '"';
        else if (next === "n") value += "\n";
        else fail("bad escape in label value");
      } else if (text[i] === "\n") fail("raw newline in label value");
      else value += text[i];
    }
    if (i >= text.length) fail("unterminated label value");
    labels[name] = value;
    at = i + 1;
    if (at < text.length) {
      if (text[at] !== ",") fail("labels not separated by ,");
      at++;
    }
  }
  return labels;
}

function parseValue(text: string): number | undefined {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  return /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined;
}

function seriesKey(name: string, labels: Record<string, string>): string {
  return `${name}{${Object.keys(labels)
    .sort()
    .map((key) => `${key}=${JSON.stringify(labels[key])}`)
    .join(",")}}`;
}

type Bucket = { series: string; family: string; le: number; count: number };

/** Buckets cumulative in le order, the +Inf bucket present and equal to _count, a _sum beside them, for every histogram series. */
function checkHistograms(buckets: Bucket[], samples: Map<string, number>): void {
  const bySeries = Map.groupBy(buckets, (bucket) => bucket.series);
  for (const [series, list] of bySeries) {
    list.sort((a, b) => a.le - b.le);
    list.forEach((bucket, i) => {
      if (i > 0 && bucket.count < list[i - 1]!.count) throw new Error(`${series}: buckets not cumulative`);
    });
    const { family, le, count } = list.at(-1)!;
    if (le !== Infinity) throw new Error(`${series}: no +Inf bucket`);
    const total = samples.get(series.replace(`${family}{`, `${family}_count{`));
    if (total !== count) throw new Error(`${series}: +Inf bucket ${count} but _count ${total}`);
    if (!samples.has(series.replace(`${family}{`, `${family}_sum{`))) throw new Error(`${series}: no _sum`);
  }
}
