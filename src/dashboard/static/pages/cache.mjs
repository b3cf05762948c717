// Cache: the workspace's cache statistics, the hit rate over time (from the evidence log), purge.

import { api, get } from "../api.mjs";
import { ratioOverTime } from "../charts.mjs";
import { busy, confirmAction, dataTable, errorNotice, failure, field, keyValues, pageHeading, pager, toast } from "../components.mjs";
import { append, h } from "../dom.mjs";
import { hitRateOverTime, latestEvidence } from "../evidence.mjs";
import { bytes, label, ms, percent, plain, time } from "../format.mjs";

const STATS_PATH = "/v1/cache/stats";
const ENTRIES_PATH = "/v1/cache/entries";
const ENTRIES_PAGE = 20;
/** Time buckets (of at least a minute) the hit-rate chart needs before it is drawn. */
const MIN_CHART_BUCKETS = 3;

const entryColumns = (onDelete) => [
  { label: "Prompt", cell: (e) => (e.prompt === null ? h("span", { class: "muted" }, "(exact repeats only)") : e.prompt) },
  { label: "Model", cell: (e) => h("code", {}, e.model) },
  { label: "Hits", cell: (e) => String(e.hits), numeric: true },
  { label: "Size", cell: (e) => bytes(e.bytes), numeric: true },
  { label: "Last used", cell: (e) => time(e.last_used_at) },
  { label: "Expires", cell: (e) => time(e.expires_at) },
  {
    label: "",
    cell: (e) => {
      const button = h("button", { type: "button", class: "button small danger", "aria-label": `Delete the cached answer to: ${e.prompt ?? e.key}` }, "Delete");
      button.addEventListener("click", () => onDelete(e, button));
      return button;
    },
  },
];
const SETTINGS_PATH = "/v1/cache/settings";

function statValue(name, value) {
  if (typeof value !== "number") return plain(value);
  if (/(rate|ratio)$/.test(name)) return percent(value);
  if (/bytes$/.test(name)) return bytes(value);
  if (/_ms(_|$)/.test(name)) return ms(value);
  return plain(value);
}

/** Every field the stats API returns; nested objects as "outer › inner" rows. */
function statRows(stats, prefix = "") {
  return Object.entries(stats).flatMap(([name, value]) => {
    // A unit in the name ("upstream_ms_saved") is shown with the value instead.
    const words = label(name.replace(/_(ms|bytes)(?=_|$)/, ""));
    const term = prefix ? `${prefix} › ${words}` : words;
    if (value && typeof value === "object" && !Array.isArray(value)) return statRows(value, term);
    return [[term, statValue(name, value)]];
  });
}

/** The workspace's cache settings, editable (threshold left empty = the built-in default). */
function settingsForm(settings, onSaved) {
  const enabled = h("input", { type: "checkbox", name: "enabled", checked: settings.enabled });
  const semantic = h("input", { type: "checkbox", name: "semantic", checked: settings.semantic });
  const threshold = h("input", { type: "number", name: "threshold", min: "0.5", max: "1", step: "0.01", value: settings.threshold ?? "", placeholder: String(settings.effective_threshold) });
  const ttl = h("input", { type: "number", name: "ttl_seconds", min: "1", step: "1", required: true, value: String(settings.ttl_seconds) });
  const maxEntries = h("input", { type: "number", name: "max_entries", min: "1", step: "1", required: true, value: String(settings.max_entries) });
  const submit = h("button", { type: "submit", class: "button primary" }, "Save settings");
  const status = h("div", { class: "form-status" });
  const form = h(
    "form",
    { class: "inline-form" },
    h("label", { class: "check" }, enabled, " Cache enabled"),
    h("label", { class: "check" }, semantic, " Semantic matches"),
    field("Similarity threshold", threshold, `Empty = default (${settings.effective_threshold}).`),
    field("Time to live (seconds)", ttl),
    field("Maximum entries", maxEntries),
    h("div", { class: "filter-actions" }, submit),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const saved = await busy(submit, status, () =>
      api("PATCH", SETTINGS_PATH, {
        enabled: enabled.checked,
        semantic: semantic.checked,
        threshold: threshold.value === "" ? null : Number(threshold.value),
        ttl_seconds: Number(ttl.value),
        max_entries: Number(maxEntries.value),
      }),
    );
    if (!saved) return;
    toast("Cache settings saved");
    onSaved(saved);
  });
  return form;
}

export async function cachePage({ view }) {
  const statsSlot = h("div", { "aria-live": "polite" }, h("p", { class: "loading" }, "Loading…"));
  const chartSlot = h("div", {}, h("p", { class: "loading" }, "Loading…"));
  const purge = h("button", { type: "button", class: "button danger" }, "Purge cache");
  const purgeStatus = h("div", { class: "form-status" });

  const settingsSlot = h("div");

  const showSettings = (settings) => settingsSlot.replaceChildren(settingsForm(settings, showSettings));

  async function loadSettings() {
    try {
      showSettings(await get(SETTINGS_PATH));
    } catch (error) {
      settingsSlot.replaceChildren(failure(error, "Cache settings", SETTINGS_PATH));
    }
  }

  async function loadStats() {
    try {
      const stats = await get(STATS_PATH);
      statsSlot.replaceChildren(keyValues(statRows(stats)));
      purge.disabled = false;
    } catch (error) {
      statsSlot.replaceChildren(failure(error, "The response cache", STATS_PATH));
      purge.disabled = true;
    }
  }

  purge.addEventListener("click", async () => {
    const confirmed = await confirmAction({
      title: "Purge the cache?",
      message: "Every cached response of this workspace is deleted. Later requests go to the provider until the cache fills again.",
      confirmLabel: "Purge",
    });
    if (!confirmed) return;
    const result = await busy(purge, purgeStatus, () => api("DELETE", "/v1/cache"));
    if (result === undefined) return;
    toast(`Cache purged: ${result.deleted} ${result.deleted === 1 ? "entry" : "entries"} removed`);
    await loadStats();
  });

  const entriesSlot = h("div", { "aria-live": "polite" }, h("p", { class: "loading" }, "Loading…"));
  let entriesOffset = 0;
  async function loadEntries() {
    try {
      const page = await get(ENTRIES_PATH, { limit: ENTRIES_PAGE, offset: entriesOffset });
      entriesSlot.replaceChildren(
        dataTable({ caption: "Cached answers, most recently used first", columns: entryColumns(deleteEntry), rows: page.entries, empty: "No cached answers yet." }),
        pager({ offset: entriesOffset, limit: ENTRIES_PAGE, total: page.total, shown: page.entries.length, label: "Cache entry pages", onChange: (next) => ((entriesOffset = next), loadEntries()) }),
      );
    } catch (error) {
      entriesSlot.replaceChildren(failure(error, "Cache entries", ENTRIES_PATH));
    }
  }
  async function deleteEntry(entry, button) {
    const confirmed = await confirmAction({ title: "Delete this cached answer?", message: "The next request like it goes to the provider and is cached again.", confirmLabel: "Delete" });
    if (!confirmed) return;
    const result = await busy(button, purgeStatus, () => api("DELETE", `/v1/cache/${entry.key}`));
    if (result === undefined) return;
    toast("Cached answer deleted");
    await Promise.all([loadEntries(), loadStats()]);
  }

  append(view,
    pageHeading("Cache"),
    h("p", { class: "muted" }, "Repeated (and, when enabled, semantically similar) requests are answered from the cache without calling the provider."),
    h("section", { class: "card", "aria-labelledby": "cache-stats-title" }, h("h2", { id: "cache-stats-title" }, "Statistics"), statsSlot, h("div", { class: "actions" }, purge), purgeStatus),
    h("section", { "aria-labelledby": "hit-rate-title" }, h("h2", { id: "hit-rate-title" }, "Hit rate over time"), chartSlot),
    h("section", { "aria-labelledby": "entries-title" }, h("h2", { id: "entries-title" }, "Entries"), entriesSlot),
    h("section", { class: "card", "aria-labelledby": "cache-settings-title" }, h("h2", { id: "cache-settings-title" }, "Settings"), settingsSlot),
  );

  await Promise.all([
    loadStats(),
    loadEntries(),
    loadSettings(),
    latestEvidence().then(
      ({ records }) => {
        const points = hitRateOverTime(records);
        const hits = points.reduce((sum, point) => sum + point.ratio * point.count, 0);
        const lookups = points.reduce((sum, point) => sum + point.count, 0);
        chartSlot.replaceChildren(
          points.length >= MIN_CHART_BUCKETS
            ? ratioOverTime(points, { what: "Cache hit rate", caption: `Share of cache hits among the latest ${records.length} proxied requests (from the evidence log; requests that skipped the cache are left out).` })
            : points.length > 0
              // One or two time buckets make a chart of a dot or two: said in words until there is a line worth drawing.
              ? h("p", {}, `${Math.round(hits)} of ${lookups} cache lookups were hits (${percent(hits / lookups)}); the chart over time appears once requests span a few minutes.`)
              : h("p", { class: "empty" }, "No cache hits or misses recorded yet."),
        );
      },
      (error) => chartSlot.replaceChildren(errorNotice(error)),
    ),
  ]);
}
