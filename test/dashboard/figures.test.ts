import { describe, expect, test } from "bun:test";
import { join } from "node:path";

/** The dashboard's pure browser modules run under bun as they are (no DOM needed to import them). */
const STATIC_DIR = join(import.meta.dir, "../../src/dashboard/static");
type Bucket = { at: Date; ratio: number; count: number };
type FamilyEvents = { family: string; log: number; warn: number; block: number; total: number };
const evidence: {
  hitRateOverTime: (records: object[]) => Bucket[];
  eventsByFamily: (records: object[]) => FamilyEvents[];
  matchFamilies: (record: object) => string[];
} = await import(join(STATIC_DIR, "evidence.mjs"));
const charts: { binValues: (values: number[]) => { from: number; to: number; count: number }[] } = await import(join(STATIC_DIR, "charts.mjs"));
type Scored = { family: string; score: number; fired: boolean; pattern_id: string };
const firewallPage: { bestPerFamily: (result: object) => Scored[] } = await import(join(STATIC_DIR, "pages/firewall.mjs"));
const format: { percentile: (values: number[], p: number) => number | null } = await import(join(STATIC_DIR, "format.mjs"));

const at = (iso: string, cache_status: string) => ({ created_at: iso, cache_status });

describe("figures drawn from the evidence log", () => {
  test("hit rate per time bucket counts hits and misses only", () => {
    const records = [
      at("2026-01-01T10:00:10Z", "miss"),
      at("2026-01-01T10:00:20Z", "hit"),
      at("2026-01-01T10:00:30Z", "skip"),
      at("2026-01-01T10:05:00Z", "hit"),
      at("2026-01-01T10:05:30Z", "hit"),
      at("2026-01-01T10:06:00Z", "miss"),
    ];
    // A 6-minute span fits in 1-minute buckets (at most ~24 of them).
    expect(evidence.hitRateOverTime(records)).toEqual([
      { at: new Date("2026-01-01T10:00:00Z"), ratio: 0.5, count: 2 },
      { at: new Date("2026-01-01T10:05:00Z"), ratio: 1, count: 2 },
      { at: new Date("2026-01-01T10:06:00Z"), ratio: 0, count: 1 },
    ]);
    expect(evidence.hitRateOverTime([at("2026-01-01T10:00:00Z", "skip")])).toEqual([]);
  });

  test("a long span gets wider buckets, never more than about 24", () => {
    const records = Array.from({ length: 200 }, (_, i) => at(new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString(), i % 4 === 0 ? "hit" : "miss"));
    const buckets = evidence.hitRateOverTime(records);
    expect(buckets.length).toBeLessThanOrEqual(25);
    expect(buckets.reduce((sum, bucket) => sum + bucket.count, 0)).toBe(200);
  });

  test("firewall events by family: allow is not an event; one request can count for two families", () => {
    const records = [
      { firewall_action: "allow", firewall_matches: [] },
      { firewall_action: "block", firewall_matches: [{ family: "jailbreak" }, { family: "prompt_injection" }] },
      { firewall_action: "warn", firewall_matches: [{ family: "role_manipulation" }, { family: "role_manipulation" }] },
      { firewall_action: "block", firewall_matches: [{ family: "jailbreak" }] },
      { firewall_action: "log", firewall_matches: [] },
    ];
    expect(evidence.eventsByFamily(records)).toEqual([
      { family: "jailbreak", log: 0, warn: 0, block: 2, total: 2 },
      { family: "prompt_injection", log: 0, warn: 0, block: 1, total: 1 },
      { family: "role_manipulation", log: 0, warn: 1, block: 0, total: 1 },
      { family: "(unnamed)", log: 1, warn: 0, block: 0, total: 1 },
    ]);
  });
});

describe("firewall test result", () => {
  test("best score per family from the fired patterns and the closest one, strongest first", () => {
    const hit = (pattern_id: string, family: string, score: number) => ({ pattern_id, family, score, similarity: score / 2, threshold: 0.9, action: "block", side: "input" });
    const best = firewallPage.bestPerFamily({
      matches: [hit("pi.a", "prompt_injection", 0.93), hit("pe.a", "prompt_extraction", 0.97), hit("pi.b", "prompt_injection", 0.95)],
      top: { pattern_id: "pe.a", family: "prompt_extraction", similarity: 0.48, score: 0.97 },
    });
    expect(best.map((entry) => [entry.family, entry.pattern_id, entry.score, entry.fired])).toEqual([
      ["prompt_extraction", "pe.a", 0.97, true], // the closest pattern also fired: shown as fired
      ["prompt_injection", "pi.b", 0.95, true],
    ]);
    const nothingFired = firewallPage.bestPerFamily({ matches: [], top: { pattern_id: "jb.x", family: "jailbreak", similarity: 0.2, score: 0.31 } });
    expect(nothingFired.map((entry) => [entry.family, entry.fired])).toEqual([["jailbreak", false]]);
    expect(firewallPage.bestPerFamily({ matches: [], top: null })).toEqual([]);
  });
});

describe("chart helpers", () => {
  test("histogram bins cover every value, with equal integer widths", () => {
    const values = [0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55];
    const bins = charts.binValues(values);
    expect(bins.reduce((sum, bin) => sum + bin.count, 0)).toBe(values.length);
    expect(bins[0]!.from).toBe(0);
    expect(bins.at(-1)!.to).toBeGreaterThan(55);
    expect(new Set(bins.map((bin) => bin.to - bin.from)).size).toBe(1);
    expect(bins.length).toBeGreaterThanOrEqual(5);
    expect(charts.binValues([7]).reduce((sum, bin) => sum + bin.count, 0)).toBe(1);
  });

  test("nearest-rank percentiles", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(format.percentile(values, 50)).toBe(5);
    expect(format.percentile(values, 95)).toBe(10);
    expect(format.percentile([], 50)).toBeNull();
  });
});
