// Figures derived from the evidence log (/v1/evidence), shared by the Requests, Cache and
// Firewall pages.

import { get } from "./api.mjs";

/** The API's page maximum: charts look at up to this many latest records. */
export const SAMPLE_SIZE = 1000;

export const latestEvidence = (filters = {}) => get("/v1/evidence", { ...filters, limit: SAMPLE_SIZE, offset: 0 });

/** Families named by a record's firewall matches (each match object carries its pattern's family). */
export const matchFamilies = (record) => [...new Set((record.firewall_matches ?? []).map((match) => match?.family).filter(Boolean))];

const BUCKET_SIZES_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];

/** Cache hit rate per time bucket (hit / (hit + miss); skipped requests do not count), at most ~24 buckets. */
export function hitRateOverTime(records) {
  const counted = records.filter((record) => record.cache_status === "hit" || record.cache_status === "miss");
  if (counted.length === 0) return [];
  const times = counted.map((record) => Date.parse(record.created_at));
  const first = Math.min(...times);
  const span = Math.max(...times) - first;
  const size = BUCKET_SIZES_MS.find((candidate) => span / candidate <= 24) ?? BUCKET_SIZES_MS[BUCKET_SIZES_MS.length - 1];
  const buckets = new Map();
  counted.forEach((record, i) => {
    const start = Math.floor(times[i] / size) * size;
    const bucket = buckets.get(start) ?? { hits: 0, count: 0 };
    bucket.count++;
    if (record.cache_status === "hit") bucket.hits++;
    buckets.set(start, bucket);
  });
  return [...buckets.entries()].sort(([a], [b]) => a - b).map(([start, bucket]) => ({ at: new Date(start), ratio: bucket.hits / bucket.count, count: bucket.count }));
}

const ACTION_RANK = { log: 1, warn: 2, block: 3 };

/**
 * Firewall events (log, warn, block) per family, most frequent first. Each family counts once per
 * request, with the strongest action of its own matches: a request blocked by one family and
 * warned by another is one block and one warn, not two blocks.
 */
export function eventsByFamily(records) {
  const counts = new Map();
  for (const record of records) {
    if (record.firewall_action === "allow") continue;
    const actions = new Map();
    for (const match of record.firewall_matches ?? []) {
      const family = match?.family ?? "(unnamed)";
      const action = ACTION_RANK[match?.action] ? match.action : record.firewall_action;
      if (!actions.has(family) || ACTION_RANK[action] > ACTION_RANK[actions.get(family)]) actions.set(family, action);
    }
    if (actions.size === 0) actions.set("(unnamed)", record.firewall_action);
    for (const [family, action] of actions) {
      const entry = counts.get(family) ?? { family, log: 0, warn: 0, block: 0, total: 0 };
      entry[action]++;
      entry.total++;
      counts.set(family, entry);
    }
  }
  return [...counts.values()].sort((a, b) => b.total - a.total);
}
