// Data protection: the workspace's policy (an action per entity type, custom patterns as JSON,
// validated by the server) and the findings of recent requests from the evidence log (types,
// counts, actions and places; never values).

import { api, get } from "../api.mjs";
import { badge, busy, dataTable, errorNotice, field, pageHeading, select, toast } from "../components.mjs";
import { append, h } from "../dom.mjs";

const ACTIONS = ["block", "redact", "mask", "log", "off"];
const ACTION_TONES = { block: "bad", redact: "caution", mask: "caution", log: "neutral", off: "neutral" };
const RECENT = 100;

export async function dataProtectionPage({ view }) {
  const actionsSlot = h("div", { class: "stack" });
  const custom = h("textarea", { class: "mono wide", rows: "8", spellcheck: "false", "aria-label": "Custom patterns (JSON)", "data-testid": "dp-custom-json" });
  const phoneRegions = h("input", { type: "text", class: "mono", name: "phone-regions", spellcheck: "false", placeholder: "US, DE, FR" });
  const redactDocuments = h("input", { type: "checkbox", name: "redact-documents" });
  const save = h("button", { type: "submit", class: "button primary" }, "Save policy");
  const status = h("div", { class: "form-status" });
  const form = h("form", {}, actionsSlot, field("Custom patterns (JSON: [{\"name\", \"pattern\", \"action\"}])", custom), field("Phone regions", phoneRegions, "ISO country codes: national numbers of these countries (written without +) are phone numbers"), h("label", { class: "inline" }, redactDocuments, " Redact findings in stored document chunks"), save, status);
  const findingsSlot = h("div", { "aria-live": "polite" });
  let selects = {};

  function show(policy) {
    selects = Object.fromEntries(Object.entries(policy.actions).map(([type, action]) => [type, select(`action-${type}`, ACTIONS.map((a) => [a, a]), action)]));
    actionsSlot.replaceChildren(...Object.entries(selects).map(([type, control]) => field(type, control)));
    custom.value = JSON.stringify(policy.custom, null, 2);
    phoneRegions.value = policy.phone_regions.join(", ");
    redactDocuments.checked = policy.redact_documents;
  }

  async function loadFindings() {
    const page = await get("/v1/evidence", { limit: RECENT });
    const rows = page.records.flatMap((record) => (record.data_protection ?? []).map((finding) => ({ record, finding })));
    findingsSlot.replaceChildren(
      dataTable({
        caption: `Findings in the last ${RECENT} requests`,
        empty: "No findings in recent requests.",
        rows,
        columns: [
          { label: "When", cell: ({ record }) => new Date(record.created_at).toLocaleString() },
          { label: "Request", cell: ({ record }) => h("a", { href: `#/requests/${encodeURIComponent(record.request_id)}` }, h("code", {}, record.request_id.slice(0, 8))) },
          { label: "Side", cell: ({ finding }) => finding.side },
          { label: "Type", cell: ({ finding }) => h("code", {}, finding.rule ? `${finding.type} (${finding.rule})` : finding.type) },
          { label: "Count", cell: ({ finding }) => String(finding.count) },
          { label: "Action", cell: ({ finding }) => badge(finding.action, ACTION_TONES[finding.action]) },
          { label: "Where", cell: ({ finding }) => finding.where.join(", ") },
        ],
      }),
    );
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    let patterns;
    try {
      patterns = JSON.parse(custom.value || "[]");
    } catch (error) {
      status.replaceChildren(errorNotice(new Error(`The custom patterns are not valid JSON: ${error.message}`)));
      return;
    }
    const actions = Object.fromEntries(Object.entries(selects).map(([type, control]) => [type, control.value]));
    const regions = phoneRegions.value.split(/[\s,]+/).filter(Boolean).map((code) => code.toUpperCase());
    const workspace = await busy(save, status, () => api("PATCH", "/api/workspace", { data_protection: { actions, custom: patterns, phone_regions: regions, redact_documents: redactDocuments.checked } }));
    if (!workspace) return;
    show(workspace.data_protection);
    toast("Data protection policy saved");
  });

  append(view,
    pageHeading("Data protection"),
    h("p", { class: "muted" }, "Secrets and personal data found in requests, answers and documents, and what happens to them: block (403), redact (placeholder), mask (placeholder upstream, value restored in the answer), log (evidence only) or off. Names and postal addresses are not detected."),
    h("section", { class: "card", "aria-labelledby": "dp-policy-title" }, h("h2", { id: "dp-policy-title" }, "Policy"), form),
    h("section", { "aria-labelledby": "dp-findings-title" }, h("h2", { id: "dp-findings-title" }, "Recent findings"), findingsSlot),
  );
  try {
    show((await api("GET", "/api/workspace")).data_protection);
    await loadFindings();
  } catch (error) {
    view.prepend(errorNotice(error));
  }
}
