import { describe, expect, test } from "bun:test";
import { parseExposition } from "./exposition";

const histogram = (buckets: [string, number][], count: number) =>
  ["# TYPE t_seconds histogram", ...buckets.map(([le, n]) => `t_seconds_bucket{le="${le}"} ${n}`), "t_seconds_sum 1.5", `t_seconds_count ${count}`, ""].join("\n");

/** The checker the metrics tests rely on must itself refuse what Prometheus would refuse. */
describe("the strict exposition reader", () => {
  test("reads a well-formed exposition: escapes, +Inf, histograms, totals", () => {
    const scrape = parseExposition(
      [
        "# HELP a_total Things, with a \\\\ backslash",
        "# TYPE a_total counter",
        'a_total{kind="x",note="say \\"hi\\"\\nbye"} 3',
        'a_total{kind="y"} 4e0',
        "",
        histogram([["0.1", 1], ["1", 2], ["+Inf", 2]], 2),
      ].join("\n"),
    );
    expect(scrape.value("a_total", { note: 'say "hi"\nbye', kind: "x" })).toBe(3);
    expect(scrape.total("a_total")).toBe(7);
    expect(scrape.value("t_seconds_bucket", { le: "+Inf" })).toBe(2);
    expect(scrape.value("a_total", { kind: "absent" })).toBe(0);
  });

  test.each([
    ["a sample of an undeclared family", "b_total 1\n"],
    ["a value that is not a number", "# TYPE a gauge\na 1,5\n"],
    ["an unknown escape", '# TYPE a gauge\na{k="\\t"} 1\n'],
    ["an unquoted label value", "# TYPE a gauge\na{k=v} 1\n"],
    ["a bad label name", '# TYPE a gauge\na{1k="v"} 1\n'],
    ["a duplicate series", '# TYPE a gauge\na{k="v"} 1\na{k="v"} 2\n'],
    ["a TYPE after samples", "# TYPE a gauge\na 1\n# TYPE a gauge\n"],
    ["a missing final newline", "# TYPE a gauge\na 1"],
    ["buckets that are not cumulative", histogram([["0.1", 2], ["1", 1], ["+Inf", 2]], 2)],
    ["no +Inf bucket", histogram([["0.1", 1], ["1", 2]], 2)],
    ["+Inf disagreeing with _count", histogram([["0.1", 1], ["+Inf", 2]], 3)],
  ])("refuses %s", (_what, text) => {
    expect(() => parseExposition(text)).toThrow();
  });
});
