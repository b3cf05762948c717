import { calcPrice } from "@pydantic/genai-prices";
import type { Usage } from "../proxy/dialects/dialect";
import type { PriceOverride } from "./model";

/** Where a cost came from: the operator's `prices:` or Pydantic's genai-prices catalogue. */
export type PricedBy = "override" | "catalogue";
/** `priceName`: the catalogue's id of the model, or the override's name: a bounded set, fit for a metric label. */
export type Cost = { usd: number; pricedBy: PricedBy; priceName: string };

/** Models the catalogue does not know, remembered per provider (a lookup that fails costs ~40 µs). */
const UNKNOWN_LIMIT = 10_000;

/**
 * Prices of one request's tokens: the operator's overrides first (exact name, then the longest
 * `prefix*`), else the genai-prices catalogue bundled in the package (and so in the binary). The
 * catalogue is never updated at run time: genai-prices fetches only when `updatePrices` is called,
 * and nothing here calls it. A model neither knows has no cost (null), never a guess.
 */
export class PriceBook {
  readonly #exact = new Map<string, PriceOverride>();
  readonly #prefixes: [string, PriceOverride][];
  readonly #unknown = new Set<string>();

  constructor(overrides: Record<string, PriceOverride> = {}) {
    const prefixes: [string, PriceOverride][] = [];
    for (const [name, price] of Object.entries(overrides)) {
      if (name.endsWith("*")) prefixes.push([name.slice(0, -1), price]);
      else this.#exact.set(name, price);
    }
    this.#prefixes = prefixes.sort((a, b) => b[0].length - a[0].length);
  }

  cost(provider: string, model: string, usage: Usage): Cost | null {
    const input = usage.prompt_tokens ?? 0;
    const output = usage.completion_tokens ?? 0;
    const cached = Math.min(usage.cached_tokens ?? 0, input);
    const exact = this.#exact.get(model);
    const prefixed = exact ? undefined : this.#prefixes.find(([prefix]) => model.startsWith(prefix));
    const override = exact ?? prefixed?.[1];
    if (override) {
      const usd = ((input - cached) * override.input_per_mtok + cached * (override.cached_input_per_mtok ?? override.input_per_mtok) + output * override.output_per_mtok) / 1e6;
      return { usd, pricedBy: "override", priceName: exact ? model : `${prefixed![0]}*` };
    }
    const memoKey = `${provider}\u0000${model}`;
    if (!model || this.#unknown.has(memoKey)) return null;
    const priced = calcPrice(
      { input_tokens: input, cache_read_tokens: cached || undefined, cache_write_tokens: usage.cache_write_tokens || undefined, output_tokens: output },
      model,
      { providerId: provider },
    );
    if (!priced) {
      if (this.#unknown.size >= UNKNOWN_LIMIT) this.#unknown.clear();
      this.#unknown.add(memoKey);
      return null;
    }
    return { usd: priced.total_price, pricedBy: "catalogue", priceName: priced.model.id };
  }
}
