import { describe, expect, test } from "bun:test";
import { parseConfigFile, RoutingFileError } from "../../src/routing/config-file";
import { effectiveLimits, windowOf } from "../../src/usage/limits";
import { PriceBook } from "../../src/usage/prices";

const parse = (text: string) => parseConfigFile(text, "sieve.yaml", { timeoutMs: 1000, env: {} });
const problems = (text: string) => {
  try {
    parse(text);
  } catch (error) {
    return (error as RoutingFileError).problems;
  }
  return [];
};

describe("the config file's prices: and limits:", () => {
  test("a file of only prices and limits is valid; bad ones are refused naming key and line", () => {
    const file = parse("prices:\n  my-llama: { input_per_mtok: 0.6, output_per_mtok: 0.8 }\nlimits:\n  key: { requests_per_minute: 10 }\n");
    expect(file.prices).toEqual({ "my-llama": { input_per_mtok: 0.6, output_per_mtok: 0.8 } });
    expect(file.limits).toEqual({ key: { requests_per_minute: 10 } });
    expect(file.table.targets).toEqual([]);
    expect(problems("prices:\n  my-llama:\n    input_per_mtok: -1\n    output_per_mtok: 1\n")).toEqual([expect.stringMatching(/^prices\.my-llama\.input_per_mtok \(line 3\): /)]);
    expect(problems("limits:\n  workspace: { requests_per_hour: 5 }\n")).toEqual([expect.stringMatching(/^limits\.workspace\.requests_per_hour \(line 2\): unknown key/)]);
  });
});

describe("prices", () => {
  test("an exact override wins over a prefix, a longer prefix over a shorter, an override over the catalogue", () => {
    const book = new PriceBook({ "gpt-4o": { input_per_mtok: 1, output_per_mtok: 1 }, "ft:*": { input_per_mtok: 2, output_per_mtok: 2 }, "ft:gpt-4o*": { input_per_mtok: 3, output_per_mtok: 3 } });
    const usage = { prompt_tokens: 1_000_000, completion_tokens: 0 };
    expect(book.cost("openai", "gpt-4o", usage)).toEqual({ usd: 1, pricedBy: "override", priceName: "gpt-4o" });
    expect(book.cost("openai", "ft:gpt-4o:acme", usage)).toEqual({ usd: 3, pricedBy: "override", priceName: "ft:gpt-4o*" });
    expect(book.cost("openai", "ft:llama", usage)).toEqual({ usd: 2, pricedBy: "override", priceName: "ft:*" });
    // The catalogue: gpt-4o-mini at $0.15 per million input tokens, cached ones at half.
    expect(new PriceBook().cost("openai", "gpt-4o-mini-2024-07-18", { ...usage, cached_tokens: 500_000 })).toMatchObject({ usd: 0.5 * 0.15 + 0.5 * 0.075, pricedBy: "catalogue", priceName: "gpt-4o-mini" });
    expect(new PriceBook().cost("openai", "no-such-model", usage)).toBeNull();
  });
});

describe("limits", () => {
  test("own settings win over the defaults limit by limit; null removes a default", () => {
    expect(effectiveLimits({ spend_per_day_usd: 5, requests_per_minute: null }, { requests_per_minute: 60, tokens_per_minute: 1000 })).toEqual({
      limits: { tokens_per_minute: 1000, spend_per_day_usd: 5 },
      soft: false,
    });
    expect(effectiveLimits(null, { requests_per_minute: 60, soft: true })).toEqual({ limits: { requests_per_minute: 60 }, soft: true });
  });

  test("windows are UTC minutes, days and months", () => {
    const at = Date.UTC(2026, 11, 31, 23, 59, 30);
    expect(windowOf("minute", at)).toEqual({ start: Date.UTC(2026, 11, 31, 23, 59), end: Date.UTC(2027, 0, 1) });
    expect(windowOf("day", at)).toEqual({ start: Date.UTC(2026, 11, 31), end: Date.UTC(2027, 0, 1) });
    expect(windowOf("month", at)).toEqual({ start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) });
  });
});

describe("estimates", () => {
  test("a long answer without spaces is estimated in bounded time (no quadratic byte-pair run), counted at the sample's rate", async () => {
    const { estimateUsage } = await import("../../src/usage/estimate");
    const usage = await estimateUsage("gpt-4o", ["hello there"], "x".repeat(4 * 1024 * 1024));
    expect(usage.prompt_tokens).toBe(2);
    // o200k_base packs runs of "x" into a few characters per token: millions of characters, far fewer tokens.
    expect(usage.completion_tokens).toBeGreaterThan(100_000);
    expect(usage.completion_tokens).toBeLessThan(4 * 1024 * 1024);
  });
});
