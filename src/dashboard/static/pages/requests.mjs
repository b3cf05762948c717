// Requests: the evidence log of proxied calls, with filters, paging, an overhead histogram and a
// detail view with the logged bodies.

import { get } from "../api.mjs";
import { histogram } from "../charts.mjs";
import { badge, dataTable, errorNotice, field, firewallTone, keyValues, pageHeading, pager, select } from "../components.mjs";
import { append, h } from "../dom.mjs";
import { latestEvidence, matchFamilies } from "../evidence.mjs";
import { label, ms, percentile, prettyBody, time } from "../format.mjs";

const PAGE_SIZE = 50;

const FILTERS = ["status", "cache", "firewall", "api", "since", "until"];

// The APIs that run the pipeline; pass-through records carry their own "METHOD /path".
const API_CHOICES = [["", "any"], ["POST /v1/chat/completions", "Chat completions"], ["POST /v1/responses", "Responses"], ["POST /v1/messages", "Anthropic Messages"]];

const cacheTone = (status) => (status === "hit" ? "ok" : "neutral");
const statusTone = (status) => (status < 400 ? "ok" : status < 500 ? "caution" : "bad");

// datetime-local inputs hold local wall time; the API takes ISO instants.
const toLocalInput = (iso) => {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "" : new Date(date.getTime() - date.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
};
const fromLocalInput = (value) => (value ? new Date(value).toISOString() : "");

function filterForm(query, setQuery) {
  const status = h("input", { type: "number", name: "status", min: "100", max: "599", value: query.get("status") ?? "", inputmode: "numeric" });
  const cache = select("cache", [["", "any"], ["hit", "hit"], ["miss", "miss"], ["skip", "skip"]], query.get("cache"));
  const firewall = select("firewall", [["", "any"], ["allow", "allow"], ["log", "log"], ["warn", "warn"], ["block", "block"]], query.get("firewall"));
  const api = select("api", API_CHOICES, query.get("api"));
  const since = h("input", { type: "datetime-local", name: "since", value: toLocalInput(query.get("since")) });
  const until = h("input", { type: "datetime-local", name: "until", value: toLocalInput(query.get("until")) });
  const clear = h("button", { type: "button", class: "button" }, "Clear");
  clear.addEventListener("click", () => setQuery({}));
  const form = h(
    "form",
    { class: "filters", "aria-label": "Filter requests" },
    field("HTTP status", status),
    field("Cache", cache),
    field("Firewall", firewall),
    field("API", api),
    field("Since", since),
    field("Until", until),
    h("div", { class: "filter-actions" }, h("button", { type: "submit", class: "button primary" }, "Apply"), clear),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    setQuery({ status: status.value, cache: cache.value, firewall: firewall.value, api: api.value, since: fromLocalInput(since.value), until: fromLocalInput(until.value) });
  });
  return form;
}

const requestColumns = [
  { label: "Time", cell: (r) => h("a", { href: `#/requests/${encodeURIComponent(r.request_id)}` }, time(r.created_at)) },
  { label: "API", cell: (r) => h("code", {}, r.api) },
  { label: "Model", cell: (r) => r.model ?? "–" },
  { label: "Status", cell: (r) => badge(String(r.status), statusTone(r.status)) },
  { label: "Cache", cell: (r) => badge(r.cache_status, cacheTone(r.cache_status)) },
  { label: "Firewall", cell: (r) => [badge(r.firewall_action, firewallTone(r.firewall_action)), " ", matchFamilies(r).join(", ")] },
  { label: "Overhead", cell: (r) => ms(r.overhead_ms), numeric: true },
  { label: "Upstream", cell: (r) => ms(r.upstream_ms), numeric: true },
  { label: "Tokens", cell: (r) => r.usage?.total_tokens ?? "–", numeric: true },
];

function overheadChart(records) {
  if (records.length === 0) return h("p", { class: "empty" }, "No requests to chart yet.");
  const values = records.map((r) => r.overhead_ms);
  return h(
    "div",
    {},
    histogram(values, { unit: "ms", caption: `Proxy overhead (time Sieve adds) of the latest ${records.length} matching requests.` }),
    keyValues([
      ["p50", ms(percentile(values, 50))],
      ["p95", ms(percentile(values, 95))],
      ["max", ms(Math.max(...values))],
    ]),
  );
}

export async function requestsPage({ view, query, setQuery, refresh }) {
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? undefined]));
  const offset = Number(query.get("offset") ?? 0) || 0;
  const tableSlot = h("div", { "aria-live": "polite" }, h("p", { class: "loading" }, "Loading…"));
  const chartSlot = h("div");
  const reload = h("button", { type: "button", class: "button small" }, "Refresh");
  reload.addEventListener("click", refresh);
  append(view,
    pageHeading("Requests"),
    h("p", { class: "muted" }, "Every request proxied for this workspace (the evidence log), newest first. ", reload),
    filterForm(query, setQuery),
    tableSlot,
    h("section", { "aria-labelledby": "overhead-title" }, h("h2", { id: "overhead-title" }, "Proxy overhead distribution"), chartSlot),
  );
  try {
    const [page, sample] = await Promise.all([
      get("/v1/evidence", { ...filters, limit: PAGE_SIZE, offset }),
      latestEvidence(filters),
    ]);
    tableSlot.replaceChildren(
      dataTable({ caption: "Proxied requests", columns: requestColumns, rows: page.records, empty: "No requests match. Send one through the proxy (see Connect your app)." }),
      pager({ offset, limit: PAGE_SIZE, total: page.total, shown: page.records.length, label: "Requests pages", onChange: (next) => setQuery({ ...filters, offset: next }) }),
    );
    chartSlot.replaceChildren(overheadChart(sample.records));
  } catch (error) {
    tableSlot.replaceChildren(errorNotice(error));
    chartSlot.replaceChildren();
  }
}

function bodyBlock(title, text) {
  return h(
    "section",
    { class: "body-block" },
    h("h2", {}, title),
    text === null || text === undefined ? h("p", { class: "muted" }, "Not logged (body logging is off for this workspace).") : h("pre", { class: "code", tabindex: "0" }, prettyBody(text)),
  );
}

function keyName(keyId, keys) {
  if (!keyId) return h("span", { class: "muted" }, "dashboard session");
  const key = keys.find((candidate) => candidate.id === keyId);
  return key ? [key.name, " ", h("code", {}, `${key.prefix}…`), key.revoked_at ? " (revoked)" : ""] : h("code", {}, keyId);
}

export async function requestDetailPage({ view, params }) {
  const [requestId] = params;
  append(view, h("p", { class: "breadcrumb" }, h("a", { href: "#/requests" }, "← Requests")), pageHeading(`Request ${requestId}`));
  let record, keys;
  try {
    [record, { keys }] = await Promise.all([get(`/v1/evidence/${encodeURIComponent(requestId)}`), get("/api/keys")]);
  } catch (error) {
    append(view, errorNotice(error));
    return;
  }
  // The cached prompt that answered a hit, read after the rest is shown (the entry may be gone).
  const cachedPrompt = h("span", { class: "muted" }, "…");
  if (record.cache_hit) {
    get(`/v1/cache/entries/${record.cache_hit.key}`).then(
      (entry) => cachedPrompt.replaceChildren(entry.prompt === null ? h("span", { class: "muted" }, "an entry for exact repeats only") : h("q", {}, entry.prompt)),
      () => cachedPrompt.replaceChildren(h("span", { class: "muted" }, `entry ${record.cache_hit.key.slice(0, 12)}… is no longer in the cache`)),
    );
  }
  append(view,
    keyValues([
      ["Time", time(record.created_at)],
      ["API", h("code", {}, record.api)],
      ["Model", record.model ?? "–"],
      ["Stream", record.stream ? "yes" : "no"],
      ["Status", badge(String(record.status), statusTone(record.status))],
      ["Cache", [badge(record.cache_status, cacheTone(record.cache_status)), record.cache_hit ? ` ${record.cache_hit.kind} match, similarity ${record.cache_hit.similarity.toFixed(4)}` : ""]],
      record.cache_hit ? ["Answered by", cachedPrompt] : null,
      record.cache_rejected ? ["Cache candidate rejected", `similarity ${record.cache_rejected.similarity.toFixed(4)}: ${record.cache_rejected.reason}`] : null,
      ["Firewall", [badge(record.firewall_action, firewallTone(record.firewall_action)), " ", matchFamilies(record).join(", ")]],
      ["Overhead", ms(record.overhead_ms)],
      ["Upstream", ms(record.upstream_ms)],
      ["Tokens", record.usage ? `${record.usage.prompt_tokens} prompt + ${record.usage.completion_tokens} completion = ${record.usage.total_tokens}` : "–"],
      ["API key", keyName(record.key_id, keys)],
      ["Prompt SHA-256", h("code", { class: "wrap" }, record.prompt_sha256)],
      record.error ? ["Error", record.error] : null,
      record.firewall_action === "block" ? ["Blocked", blockedBy(record)] : null,
      record.attempts ? ["Attempts", attemptsList(record.attempts)] : null,
    ].filter(Boolean)),
    (record.firewall_matches ?? []).length ? matchesTable(record.firewall_matches) : null,
    bodyBlock("Request body", record.request_body),
    bodyBlock("Response body", record.response_body),
  );
}

/** Why a request was blocked: the families whose block patterns fired, and on which side. */
function blockedBy(record) {
  const blocking = (record.firewall_matches ?? []).filter((m) => m?.action === "block");
  if (blocking.length === 0) return "by the firewall";
  const strongest = blocking.reduce((a, b) => (b.score > a.score ? b : a));
  const side = strongest.side === "output" ? "in the answer" : "in the request";
  return `${label(strongest.family)} ${side} (score ${strongest.score.toFixed(3)} over its threshold ${strongest.threshold})`;
}

/** The patterns that fired, one row each: family, pattern, side, calibrated score against threshold, raw similarity, action. */
function matchesTable(matches) {
  return h(
    "section",
    { "aria-labelledby": "matches-title" },
    h("h2", { id: "matches-title" }, "Firewall matches"),
    dataTable({
      caption: "Patterns that fired on this request",
      empty: "",
      rows: matches,
      columns: [
        { label: "Family", cell: (m) => label(m.family ?? "(unnamed)") },
        { label: "Pattern", cell: (m) => h("code", {}, m.pattern_id ?? "–") },
        { label: "Side", cell: (m) => m.side ?? "–" },
        { label: "Score", cell: (m) => (typeof m.score === "number" ? m.score.toFixed(3) : "–"), numeric: true },
        { label: "Threshold", cell: (m) => (typeof m.threshold === "number" ? m.threshold.toFixed(2) : "–"), numeric: true },
        { label: "Similarity", cell: (m) => (typeof m.similarity === "number" ? m.similarity.toFixed(3) : "–"), numeric: true },
        { label: "Action", cell: (m) => (m.action ? badge(m.action, firewallTone(m.action)) : "–") },
      ],
    }),
  );
}

/** A routed request's tries in order, e.g. "openai-main: 503 server_error, 41 ms → claude: 200 ok, 612 ms". */
function attemptsList(attempts) {
  return attempts.map((a) => `${a.target}: ${a.status ?? "–"} ${a.outcome}, ${ms(a.ms)}`).join(" → ");
}
