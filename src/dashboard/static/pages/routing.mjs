// Routing: the workspace's own targets and routes (edited as JSON, validated by the server),
// its secrets (names only: values go in once and never come back) and each target's health.

import { api } from "../api.mjs";
import { badge, busy, confirmAction, dataTable, errorNotice, field, pageHeading, toast } from "../components.mjs";
import { append, h } from "../dom.mjs";

/** A starting point for a workspace without routes: one target, one route, its secret by name. */
const EXAMPLE = {
  targets: [{ name: "openai-main", kind: "openai", base_url: "https://api.openai.com/v1", api_key: "secret:openai" }],
  routes: [{ match: "gpt-*", strategy: "fallback", targets: ["openai-main"], retry: { attempts: 2, backoff_ms: 200 } }],
};

const BREAKER_TONES = { closed: "ok", half_open: "caution", open: "bad" };

export async function routingPage({ view }) {
  const healthSlot = h("div", { "aria-live": "polite" });
  const secretsSlot = h("div", { "aria-live": "polite" });
  const serverNote = h("p", { class: "muted" });

  const editor = h("textarea", { class: "mono wide", rows: "18", spellcheck: "false", "aria-label": "Routes (JSON)", "data-testid": "routing-json" });
  const save = h("button", { type: "submit", class: "button primary" }, "Save routes");
  const remove = h("button", { type: "button", class: "button danger" }, "Remove routes");
  const editorStatus = h("div", { class: "form-status" });
  const editorForm = h("form", {}, editor, h("div", { class: "inline" }, save, remove), editorStatus);

  const secretName = h("input", { type: "text", name: "secret-name", required: true, maxlength: "64", placeholder: "e.g. openai" });
  const secretValue = h("input", { type: "password", name: "secret-value", required: true, autocomplete: "off", placeholder: "the provider key" });
  const storeSecret = h("button", { type: "submit", class: "button primary" }, "Store secret");
  const secretStatus = h("div", { class: "form-status" });
  const secretForm = h("form", { class: "inline-form" }, field("Name", secretName), field("Value", secretValue), storeSecret, secretStatus);

  function show(state) {
    serverNote.textContent = state.server_routes
      ? "This server also has routes of its own (its routing file): models your routes do not match follow those."
      : "Models your routes do not match go to this workspace's provider URL.";
    healthSlot.replaceChildren(
      dataTable({
        caption: "Targets and their health on this server",
        empty: "No targets yet.",
        rows: state.targets,
        columns: [
          { label: "Target", cell: (t) => h("code", {}, t.name) },
          { label: "Kind", cell: (t) => t.kind },
          { label: "Circuit", cell: (t) => badge(t.breaker.replace("_", "-"), BREAKER_TONES[t.breaker]) },
          { label: "Next probe", cell: (t) => (t.retry_in_ms > 0 ? `in ${Math.ceil(t.retry_in_ms / 1000)} s` : "–") },
        ],
      }),
    );
    secretsSlot.replaceChildren(
      dataTable({
        caption: "Secrets (values are never shown)",
        empty: "No secrets yet.",
        rows: state.secrets,
        columns: [
          { label: "Name", cell: (name) => h("code", {}, `secret:${name}`) },
          { label: "Actions", cell: (name) => deleteSecretButton(name) },
        ],
      }),
    );
    remove.hidden = state.routing === null;
  }

  async function load() {
    const state = await api("GET", "/api/routing");
    editor.value = JSON.stringify(state.routing ?? EXAMPLE, null, 2);
    show(state);
  }

  function deleteSecretButton(name) {
    const button = h("button", { type: "button", class: "button small danger", "aria-label": `Delete secret ${name}` }, "Delete");
    button.addEventListener("click", async () => {
      if (!(await confirmAction({ title: `Delete secret "${name}"?`, message: "Routes must not use it any more.", confirmLabel: "Delete secret" }))) return;
      try {
        show(await api("DELETE", `/api/routing/secrets/${encodeURIComponent(name)}`));
        toast(`Secret "${name}" deleted`);
      } catch (error) {
        secretsSlot.prepend(errorNotice(error));
      }
    });
    return button;
  }

  editorForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    let document;
    try {
      document = JSON.parse(editor.value);
    } catch (error) {
      editorStatus.replaceChildren(errorNotice(new Error(`The routes are not valid JSON: ${error.message}`)));
      return;
    }
    const state = await busy(save, editorStatus, () => api("PUT", "/api/routing", document));
    if (!state) return;
    // As stored: with every default filled in, so the page shows what is in force.
    editor.value = JSON.stringify(state.routing, null, 2);
    show(state);
    toast("Routes saved");
  });

  remove.addEventListener("click", async () => {
    if (!(await confirmAction({ title: "Remove the routes?", message: "Requests go to this workspace's provider URL again.", confirmLabel: "Remove routes" }))) return;
    const state = await busy(remove, editorStatus, () => api("DELETE", "/api/routing"));
    if (!state) return;
    editor.value = JSON.stringify(EXAMPLE, null, 2);
    show(state);
    toast("Routes removed");
  });

  secretForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = secretName.value.trim();
    const state = await busy(storeSecret, secretStatus, () => api("PUT", `/api/routing/secrets/${encodeURIComponent(name)}`, { value: secretValue.value }));
    secretValue.value = "";
    if (!state) return;
    secretName.value = "";
    show(state);
    toast(`Secret "${name}" stored`);
  });

  append(view,
    pageHeading("Routing"),
    h("p", { class: "muted" }, "Retries, fallbacks and load balancing over your own provider deployments. Routes use the same JSON shape as a routing file (see the README's \"Routing and resilience\"); keys are referenced as ", h("code", {}, "secret:NAME"), "."),
    serverNote,
    h("section", { "aria-labelledby": "routing-health-title" }, h("h2", { id: "routing-health-title" }, "Targets"), healthSlot),
    h("section", { class: "card", "aria-labelledby": "routing-secrets-title" }, h("h2", { id: "routing-secrets-title" }, "Secrets"), secretForm, secretsSlot),
    h("section", { class: "card", "aria-labelledby": "routing-routes-title" }, h("h2", { id: "routing-routes-title" }, "Routes"), editorForm),
  );
  try {
    await load();
  } catch (error) {
    view.prepend(errorNotice(error));
  }
}
