import { describe, expect, test } from "bun:test";
import { customDetector, customPatternProblem } from "../../src/data-protection/custom-pattern";
import { Placeholders } from "../../src/data-protection/placeholders";
import { compilePolicy, scanText } from "../../src/data-protection/policy";
import { StreamRestorer } from "../../src/data-protection/restore";

const defaults = compilePolicy(null);
const found = async (text: string) => (await scanText(text, defaults)).map((f) => [f.type, text.slice(f.start, f.end)]);

describe("detectors", () => {
  test("secretlint's AWS secret key range is the key itself, not the variable name", async () => {
    const key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq3Lk9Q2vA";
    expect(await found(`aws_secret_access_key = "${key}"`)).toEqual([["secret", key]]);
  });

  test("each personal data type, and look-alikes that are not", async () => {
    expect(await found("mail jo.ann+x@mail.example.org, card 4556 7375 8689 9855, IBAN DE89 3704 0044 0532 0130 00")).toEqual([
      ["email", "jo.ann+x@mail.example.org"],
      ["credit_card", "4556 7375 8689 9855"],
      ["iban", "DE89 3704 0044 0532 0130 00"],
    ]);
    expect(await found("ssn 536-22-8143 from 203.0.113.7 or 2001:db8::1, phone (415) 555-0132")).toEqual([
      ["us_ssn", "536-22-8143"],
      ["ip_address", "203.0.113.7"],
      ["ip_address", "2001:db8::1"],
      ["phone", "(415) 555-0132"],
    ]);
    expect(await found("test card 4242 4242 4242 4242, ssn 666-12-3456, version 1.2.3.4, at 12:30:45, order 4155550132, 2024-05-01 12:00")).toEqual([]);
  });

  test("national phone numbers: after a phone word in any region, or of the workspace's regions; not order numbers or dates", async () => {
    expect(await found("Llámame al 01 43 30 56 58 cuando puedas. Call ID 0123456789 ended.")).toEqual([["phone", "01 43 30 56 58"]]);
    const regional = compilePolicy({ actions: {}, custom: [], phone_regions: ["DE", "ES"] });
    const text = "Zentrale 089 1234567, móvil 612 34 56 78, Bestellung 0861584493, am 2024-05-02T08:15, Artikel 4428-4437";
    expect((await scanText(text, regional)).map((f) => text.slice(f.start, f.end))).toEqual(["089 1234567", "612 34 56 78"]);
  });

  test("overlapping findings resolve the same way whatever the detector order: the secret wins over the address in a URL", async () => {
    const url = "postgres://admin:S3cr3tPassw0rd@db.example.com:5432/app";
    const findings = await scanText(`connect to ${url}`, defaults);
    expect(findings.map((f) => f.type)).toEqual(["secret"]);
  });

  test("scanning leaves nothing behind: secretlint's performance marks are not recorded scan after scan", async () => {
    const marks = () => performance.getEntriesByType("mark").length;
    const before = marks();
    // Each text has a 16-character run, so secretlint runs on every one of them.
    for (let i = 0; i < 50; i++) await scanText(`What is the weather like in city number responses-12-${1000 + i}?`, defaults);
    expect(marks()).toBe(before);
  });
});

describe("custom patterns", () => {
  test("catastrophic shapes are refused before they are stored", () => {
    expect(customPatternProblem("(a+)+$")).toContain("nested quantifiers");
    expect(customPatternProblem("(x|xy)*z")).toContain("alternation");
    expect(customPatternProblem("\\d*\\d*\\d*z")).toContain("too slow");
    expect(customPatternProblem("a+b+c+d+")).toContain("at most 3");
    expect(customPatternProblem("x?")).toContain("empty string");
    expect(customPatternProblem("(a)\\1")).toContain("backreferences");
    expect(customPatternProblem("EMP-\\d{6}")).toBeUndefined();
  });

  test("an accepted pattern reports at most 1000 matches, in 4 KB pieces", () => {
    const detector = customDetector({ name: "digit", pattern: "\\d", action: "log" });
    const findings = detector.detect("1 ".repeat(5000)) as { start: number }[];
    expect(findings).toHaveLength(1000);
    expect(findings.at(-1)!.start).toBe(1998);
  });
});

describe("mask restore in streams", () => {
  test("a placeholder split over three deltas comes out whole; text without one passes unchanged", () => {
    const placeholders = new Placeholders();
    const p = placeholders.placeholder("email", "a@b.example", true);
    const restorer = new StreamRestorer(placeholders.masked);
    const event = (text: string) => {
      const data = JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] });
      return { raw: `data: ${data}\n\n`, event: undefined, data };
    };
    const out = ["hi ", p.slice(0, 3), p.slice(3, 6), p.slice(6) + " bye"].map((t) => restorer.rewrite(event(t)));
    const text = out.map((raw) => (raw.startsWith("data: ") ? JSON.parse(raw.slice(6)).choices[0].delta.content : "")).join("");
    expect(text).toBe("hi a@b.example bye");
    expect(out[0]).toBe(event("hi ").raw);
  });

  test("a held prefix is sent before the next event of another kind", () => {
    const placeholders = new Placeholders();
    placeholders.placeholder("email", "a@b.example", true);
    const restorer = new StreamRestorer(placeholders.masked);
    const data = JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content: "see [EM" } }] });
    const first = restorer.rewrite({ raw: `data: ${data}\n\n`, event: undefined, data });
    expect(first).toContain('"see "');
    const done = restorer.rewrite({ raw: "data: [DONE]\n\n", event: undefined, data: "[DONE]" });
    expect(done).toBe(`data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta: { content: "[EM" } }] })}\n\ndata: [DONE]\n\n`);
  });
});
