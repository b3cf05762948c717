// Usage: spend and tokens over time, top models and keys, what the cache saved, and the
// workspace's budgets (GET /api/usage, GET and PATCH /api/workspace).

import { api, get, withQuery } from "../api.mjs";
import { barChart } from "../charts.mjs";
import { failure, keyValues, pageHeading } from "../components.mjs";
import { limitsForm } from "../limits-form.mjs";
import { append, h } from "../dom.mjs";
import { plain } from "../format.mjs";

const USAGE_PATH = "/api/usage";

const usd = (value) => `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;
const sum = (rows, column) => rows.reduce((total, row) => total + row[column], 0);

function report(groupBy, from) {
  return get(USAGE_PATH, { group_by: groupBy, from: from.toISOString() }).then((answer) => answer.rows);
}

/** Spent so far in a window against a limit: "$1.20 of $10.00 (12.0 %)". */
function consumption(spent, limit) {
  if (limit === null || limit === undefined) return `${usd(spent)} (no limit)`;
  return `${usd(spent)} of ${usd(limit)} (${((spent / limit) * 100).toFixed(1)} %)`;
}

export async function usagePage({ view }) {
  const days = 30;
  const from = new Date(Date.now() - days * 86_400_000);
  const now = new Date();
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const totalsSlot = h("div", { "aria-live": "polite" }, h("p", { class: "loading" }, "Loading…"));
  const overTimeSlot = h("div", {}, h("p", { class: "loading" }, "Loading…"));
  const topSlot = h("div", {}, h("p", { class: "loading" }, "Loading…"));
  const budgetSlot = h("div", {}, h("p", { class: "loading" }, "Loading…"));

  append(
    view,
    pageHeading("Usage"),
    h("p", { class: "muted" }, `Tokens and cost of proxied requests over the last ${days} days, at catalogue prices (genai-prices) or the operator's. `, h("a", { href: withQuery(USAGE_PATH, { group_by: "day", format: "csv", from: from.toISOString() }) }, "Download CSV")),
    h("section", { class: "card", "aria-labelledby": "usage-totals-title" }, h("h2", { id: "usage-totals-title" }, "Totals and cache savings"), totalsSlot),
    h("section", { "aria-labelledby": "usage-time-title" }, h("h2", { id: "usage-time-title" }, "Spend and tokens per day"), overTimeSlot),
    h("section", { "aria-labelledby": "usage-top-title" }, h("h2", { id: "usage-top-title" }, "Top models and keys"), topSlot),
    h("section", { class: "card", "aria-labelledby": "usage-budget-title" }, h("h2", { id: "usage-budget-title" }, "Budgets"), budgetSlot),
  );

  const [byDay, byModel, byKey, workspace] = await Promise.all([
    report("day", from),
    report("model", from),
    report("key", from),
    get("/api/workspace"),
  ]).catch((error) => {
    for (const slot of [totalsSlot, overTimeSlot, topSlot, budgetSlot]) slot.replaceChildren(failure(error, "Usage", USAGE_PATH));
    return [];
  });
  if (!byDay) return;

  totalsSlot.replaceChildren(
    keyValues([
      ["Requests", plain(sum(byDay, "requests"))],
      ["Input tokens", plain(sum(byDay, "input_tokens"))],
      ["Output tokens", plain(sum(byDay, "output_tokens"))],
      ["Cost", usd(sum(byDay, "cost_usd"))],
      ["Cache hits", plain(sum(byDay, "cache_hits"))],
      ["Saved by the cache", usd(sum(byDay, "saved_cost_usd"))],
      ["Requests without a price", plain(sum(byDay, "unpriced_requests"))],
    ]),
  );

  overTimeSlot.replaceChildren(
    byDay.length === 0
      ? h("p", { class: "empty" }, "No proxied requests in this period.")
      : h(
          "div",
          {},
          barChart(byDay.map((row) => ({ label: row.day, value: row.cost_usd, display: usd(row.cost_usd) })), { caption: "Cost per UTC day" }),
          barChart(byDay.map((row) => ({ label: row.day, value: row.input_tokens + row.output_tokens, display: plain(row.input_tokens + row.output_tokens) })), { caption: "Tokens (input + output) per UTC day" }),
        ),
  );

  const top = (rows, name) => rows.slice(0, 10).map((row) => ({ label: name(row), value: row.cost_usd, display: `${usd(row.cost_usd)} · ${plain(row.requests)} req` }));
  topSlot.replaceChildren(
    byModel.length === 0
      ? h("p", { class: "empty" }, "No proxied requests in this period.")
      : h(
          "div",
          {},
          barChart(top(byModel, (row) => row.model ?? "(none)"), { caption: "Top models by cost" }),
          barChart(top(byKey, (row) => row.key_name ?? row.key ?? "(dashboard)"), { caption: "Top keys by cost" }),
        ),
  );

  const spentSince = (start) => sum(byDay.filter((row) => row.day >= start.toISOString().slice(0, 10)), "cost_usd");
  const showBudgets = (settings) => {
    const limits = settings.limits ?? {};
    budgetSlot.replaceChildren(
      keyValues([
        ["Today (UTC)", consumption(spentSince(dayStart), limits.spend_per_day_usd)],
        ["This month (UTC)", consumption(monthStart < from ? sum(byDay, "cost_usd") : spentSince(monthStart), limits.spend_per_month_usd)],
      ]),
      h("p", { class: "muted" }, "Server defaults (the routing file, --rate-limit-rpm) apply where no limit is set here. Each key may have its own limits too (Settings → API Keys)."),
      limitsForm({ limits: settings.limits, save: (body) => api("PATCH", "/api/workspace", { limits: body }), onSaved: showBudgets }),
    );
  };
  showBudgets(workspace);
}
