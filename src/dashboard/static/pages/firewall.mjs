// Firewall: test a prompt (verdict and the top similarity per family), firewall events by family
// (from the evidence log), and the workspace's patterns: add, edit, enable/disable, delete.

import { api, get } from "../api.mjs";
import { barChart } from "../charts.mjs";
import { badge, busy, confirmAction, dataTable, errorNotice, failure, field, firewallTone, keyValues, pageHeading, select, toast } from "../components.mjs";
import { append, h, uid } from "../dom.mjs";
import { eventsByFamily, latestEvidence } from "../evidence.mjs";
import { label, ms } from "../format.mjs";

const PATTERNS_PATH = "/v1/firewall/patterns";
const TEST_PATH = "/v1/firewall/test";
const FAMILIES_PATH = "/v1/firewall/families";
const ACTIONS = [["block", "block"], ["warn", "warn"], ["log", "log"]];

/** Filter value for "the workspace's own patterns" (not a family name: those start with a letter). */
const CUSTOM_ONLY = "@custom";

const patternHref = (id) => `${PATTERNS_PATH}/${encodeURIComponent(id)}`;

/**
 * The best score per family the test result names: each fired pattern (matches) and the closest
 * pattern overall (top), strongest first. `fired` marks a score above the pattern's threshold.
 */
export function bestPerFamily(result) {
  const best = new Map();
  const candidates = [...result.matches.map((match) => ({ ...match, fired: true })), ...(result.top ? [{ ...result.top, fired: false }] : [])];
  for (const candidate of candidates) {
    const seen = best.get(candidate.family);
    if (!seen || candidate.score > seen.score || (candidate.score === seen.score && candidate.fired)) best.set(candidate.family, candidate);
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}

function testResult(result) {
  const families = bestPerFamily(result);
  return h(
    "div",
    { class: "test-result", "data-testid": "firewall-verdict" },
    keyValues([
      ["Verdict", badge(result.verdict, firewallTone(result.verdict))],
      ["Reason", result.reason ?? "no pattern fired"],
      ["Latency", ms(result.latency_ms)],
      ["Windows scored", result.skipped_windows ? `${result.windows} (${result.skipped_windows} left out by the budget)` : String(result.windows)],
    ]),
    families.length
      ? barChart(
          families.map((entry) => ({ label: label(entry.family), value: entry.score, display: `${entry.score.toFixed(3)}${entry.fired ? ` > ${entry.threshold}` : ""}`, tone: entry.fired ? firewallTone(entry.action) : "neutral" })),
          { caption: "Top score per family: the patterns that fired (coloured by action, with their threshold) and the closest pattern overall (grey)." },
        )
      : h("p", { class: "empty" }, "No enabled pattern to compare with."),
    result.matches.length
      ? dataTable({
          caption: "Patterns that fired",
          empty: "",
          rows: result.matches,
          columns: [
            { label: "Family", cell: (m) => label(m.family) },
            { label: "Pattern", cell: (m) => h("code", {}, m.pattern_id) },
            { label: "Score", cell: (m) => m.score.toFixed(3), numeric: true },
            { label: "Threshold", cell: (m) => String(m.threshold), numeric: true },
            { label: "Similarity", cell: (m) => m.similarity.toFixed(3), numeric: true },
            { label: "Action", cell: (m) => badge(m.action, firewallTone(m.action)) },
          ],
        })
      : null,
  );
}

function testBox() {
  const text = h("textarea", { name: "text", rows: "4", required: true, maxlength: "100000" });
  const submit = h("button", { type: "submit", class: "button primary" }, "Test");
  const status = h("div", { class: "form-status" });
  const output = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "stack" }, field("Prompt to test", text, "Checked against every enabled pattern; nothing is sent to a provider."), h("div", {}, submit), status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = await busy(submit, status, () => api("POST", TEST_PATH, { text: text.value }));
    if (result) output.replaceChildren(testResult(result));
  });
  return h("section", { class: "card", "aria-labelledby": "test-title" }, h("h2", { id: "test-title" }, "Test a prompt"), form, output);
}

function patternFields(pattern, families) {
  const listId = uid("families");
  const text = h("textarea", { name: "text", rows: "2", required: true, maxlength: "2000", value: pattern?.text ?? "" });
  const family = h("input", { type: "text", name: "family", required: true, maxlength: "40", list: listId, value: pattern?.family ?? "custom", pattern: "[a-z][a-z0-9_]{0,39}" });
  const action = select("action", ACTIONS, pattern?.action ?? "block");
  const threshold = h("input", { type: "number", name: "threshold", min: "0", max: "1", step: "0.01", required: true, value: String(pattern?.threshold ?? 0.9) });
  const side = select("side", [["input", "input (prompts)"], ["output", "output (responses)"]], pattern?.side ?? "input");
  const controls = { text, family, action, threshold, side };
  const nodes = [
    field("Pattern text", text, "An example of what to catch; matched by meaning, not by words."),
    field("Family", family, "Lower-case letters, digits and _, starting with a letter."),
    h("datalist", { id: listId }, families.map((name) => h("option", { value: name }))),
    field("Action", action),
    field("Threshold", threshold, "Compared with the calibrated score (the Score column of a test), not the raw similarity beside it. 0.95+ very strict · 0.85–0.95 balanced · 0.75–0.85 permissive."),
    field("Checks", side),
  ];
  const values = () => ({ text: text.value.trim(), family: family.value.trim(), action: action.value, threshold: Number(threshold.value), side: side.value });
  return { controls, nodes, values };
}

function editDialog(pattern, families, onSaved) {
  const { nodes, values } = patternFields(pattern, families);
  const titleId = uid("edit-title");
  const save = h("button", { type: "submit", class: "button primary" }, "Save");
  const builtin = pattern.built_in;
  const cancel = h("button", { type: "button", class: "button" }, builtin ? "Close" : "Cancel");
  const status = h("div", { class: "form-status" });
  // Built-in patterns can only be switched on or off; their text and settings come with Sieve.
  const form = h("form", { class: "stack" }, nodes, status, h("div", { class: "actions" }, cancel, save));
  const dialog = h("dialog", { class: "dialog wide", "aria-labelledby": titleId }, h("h2", { id: titleId }, builtin ? "Built-in pattern" : "Edit pattern"), form);
  if (builtin) for (const control of form.querySelectorAll("input, textarea, select")) control.disabled = true;
  save.hidden = builtin;
  cancel.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => dialog.remove());
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const saved = await busy(save, status, () => api("PATCH", patternHref(pattern.id), values()));
    if (!saved) return;
    dialog.close();
    toast("Pattern saved");
    onSaved();
  });
  document.body.append(dialog);
  dialog.showModal();
}

function familiesTable(families, onChange) {
  return dataTable({
    caption: "Built-in pattern families",
    empty: "No built-in families.",
    rows: families,
    columns: [
      { label: "Family", cell: (f) => label(f.family) },
      { label: "Patterns", cell: (f) => String(f.patterns), numeric: true },
      { label: "Default action", cell: (f) => badge(f.default_action, firewallTone(f.default_action)) },
      { label: "Default threshold", cell: (f) => f.default_threshold.toFixed(2), numeric: true },
      {
        label: "Enabled",
        cell: (f) =>
          toggle(f.enabled, `Family ${label(f.family)} enabled`, async (enabled) => {
            await api("PATCH", `${FAMILIES_PATH}/${encodeURIComponent(f.family)}`, { enabled });
            toast(`${label(f.family)} ${enabled ? "enabled" : "disabled"}`);
            onChange();
          }),
      },
    ],
  });
}

/** A checkbox that saves at once and reverts (with the error shown) when saving fails. */
function toggle(checked, accessibleName, save) {
  const box = h("input", { type: "checkbox", checked, "aria-label": accessibleName });
  box.addEventListener("change", async () => {
    box.disabled = true;
    try {
      await save(box.checked);
    } catch (error) {
      box.checked = !box.checked;
      box.closest("section")?.prepend(errorNotice(error));
    } finally {
      box.disabled = false;
    }
  });
  return box;
}

function patternsSection() {
  const familiesSlot = h("div");
  const listSlot = h("div", { "aria-live": "polite" }, h("p", { class: "loading" }, "Loading…"));
  const addSlot = h("div");
  // Hundreds of built-ins: the list starts with the workspace's own patterns.
  const filter = select("family", [[CUSTOM_ONLY, "your custom patterns"]], CUSTOM_ONLY);
  filter.addEventListener("change", () => void refresh());
  let familyNames = [];

  async function refresh() {
    let patterns, families;
    try {
      [{ patterns }, { families }] = await Promise.all([get(PATTERNS_PATH), get(FAMILIES_PATH)]);
    } catch (error) {
      listSlot.replaceChildren(failure(error, "The firewall", PATTERNS_PATH));
      return;
    }
    familyNames = [...new Set(patterns.map((p) => p.family))].sort();
    const chosen = filter.value;
    const options = [[CUSTOM_ONLY, "your custom patterns"], ["", "all patterns"], ...familyNames.map((name) => [name, `family: ${label(name)}`])];
    filter.replaceChildren(...options.map(([value, text]) => h("option", { value, selected: value === chosen }, text)));
    if (!addSlot.hasChildNodes()) addSlot.append(addForm());
    familiesSlot.replaceChildren(familiesTable(families, refresh));
    const shown = patterns.filter((p) => (filter.value === CUSTOM_ONLY ? !p.built_in : !filter.value || p.family === filter.value));
    listSlot.replaceChildren(
      dataTable({
        caption: "Firewall patterns",
        empty: filter.value === CUSTOM_ONLY ? "No custom patterns yet: add one above." : "No patterns here.",
        rows: shown,
        columns: [
          { label: "Family", cell: (p) => label(p.family) },
          { label: "Pattern", cell: (p) => h("span", { class: "pattern-text" }, p.text) },
          { label: "Checks", cell: (p) => p.side },
          { label: "Action", cell: (p) => badge(p.action, firewallTone(p.action)) },
          { label: "Threshold", cell: (p) => p.threshold.toFixed(2), numeric: true },
          {
            label: "Enabled",
            cell: (p) =>
              toggle(p.enabled, `Enabled: ${p.text.slice(0, 60)}`, async (enabled) => {
                await api("PATCH", patternHref(p.id), { enabled });
                toast(enabled ? "Pattern enabled" : "Pattern disabled");
              }),
          },
          { label: "Source", cell: (p) => (p.built_in ? "built-in" : "custom") },
          { label: "Actions", cell: (p) => patternActions(p) },
        ],
      }),
    );
  }

  function patternActions(pattern) {
    const edit = h("button", { type: "button", class: "button small", "aria-label": `${pattern.built_in ? "View" : "Edit"} pattern: ${pattern.text.slice(0, 60)}` }, pattern.built_in ? "View" : "Edit");
    edit.addEventListener("click", () => editDialog(pattern, familyNames, refresh));
    if (pattern.built_in) return edit;
    const remove = h("button", { type: "button", class: "button small danger", "aria-label": `Delete pattern: ${pattern.text.slice(0, 60)}` }, "Delete");
    remove.addEventListener("click", async () => {
      const confirmed = await confirmAction({ title: "Delete this pattern?", message: `"${pattern.text}" stops being checked from the next request on.`, confirmLabel: "Delete" });
      if (!confirmed) return;
      try {
        await api("DELETE", patternHref(pattern.id));
        toast("Pattern deleted");
        await refresh();
      } catch (error) {
        listSlot.prepend(errorNotice(error));
      }
    });
    return h("span", { class: "inline" }, edit, remove);
  }

  function addForm() {
    const { controls, nodes, values } = patternFields(null, familyNames);
    const submit = h("button", { type: "submit", class: "button primary" }, "Add pattern");
    const status = h("div", { class: "form-status" });
    const form = h("form", { class: "pattern-form" }, nodes, h("div", { class: "filter-actions" }, submit), status);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const created = await busy(submit, status, () => api("POST", PATTERNS_PATH, values()));
      if (!created) return;
      controls.text.value = "";
      toast("Pattern added");
      await refresh();
    });
    return h("section", { class: "card", "aria-labelledby": "add-pattern-title" }, h("h2", { id: "add-pattern-title" }, "Add a pattern"), form);
  }

  const section = h(
    "section",
    { "aria-labelledby": "patterns-title" },
    h("h2", { id: "patterns-title" }, "Patterns"),
    addSlot,
    h("section", { "aria-labelledby": "families-title" }, h("h3", { id: "families-title" }, "Built-in families"), familiesSlot),
    h("div", { class: "inline" }, field("Show", filter)),
    listSlot,
  );
  return { section, refresh };
}

async function eventsChart(slot) {
  try {
    const { records } = await latestEvidence();
    const families = eventsByFamily(records);
    slot.replaceChildren(
      families.length
        ? barChart(
            families.map((entry) => ({ label: label(entry.family), value: entry.total, tone: entry.block ? "bad" : entry.warn ? "caution" : "neutral", display: `${entry.total} (${entry.block} block, ${entry.warn} warn, ${entry.log} log)` })),
            { caption: `Firewall events by family among the latest ${records.length} proxied requests.` },
          )
        : h("p", { class: "empty" }, `No firewall events among the latest ${records.length} proxied requests.`),
    );
  } catch (error) {
    slot.replaceChildren(errorNotice(error));
  }
}

export async function firewallPage({ view }) {
  const patterns = patternsSection();
  const chartSlot = h("div", {}, h("p", { class: "loading" }, "Loading…"));
  append(view,
    pageHeading("Firewall"),
    h("p", { class: "muted" }, "Requests (and streamed responses) are compared by meaning with these patterns; a match above a pattern's threshold triggers its action."),
    testBox(),
    h("section", { "aria-labelledby": "events-title" }, h("h2", { id: "events-title" }, "Firewall events by family"), chartSlot),
    patterns.section,
  );
  await Promise.all([patterns.refresh(), eventsChart(chartSlot)]);
}
