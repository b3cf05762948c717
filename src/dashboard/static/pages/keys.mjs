// Settings → API Keys: create (the full key is shown once), list, set a key's own limits, revoke
// after a confirmation.

import { api } from "../api.mjs";
import { badge, busy, confirmAction, copyButton, dataTable, errorNotice, field, pageHeading, toast } from "../components.mjs";
import { append, h } from "../dom.mjs";
import { time } from "../format.mjs";
import { limitsForm, limitsSummary } from "../limits-form.mjs";

function newKeyPanel(created) {
  const keyField = h("input", { type: "text", readonly: true, class: "mono wide", value: created.api_key, "aria-label": "New API key", "data-testid": "new-api-key" });
  keyField.addEventListener("focus", () => keyField.select());
  return h(
    "section",
    { class: "card highlight", "aria-labelledby": "new-key-title" },
    h("h2", { id: "new-key-title" }, `Key "${created.name}" created`),
    h("p", {}, h("strong", {}, "Copy it now: "), "this is the only time the full key is shown. Sieve stores only a hash of it."),
    h("div", { class: "inline" }, keyField, copyButton(created.api_key, "API key")),
    h("p", { class: "muted" }, "Send it as ", h("code", {}, "X-Service-Api-Key"), " with ", h("code", {}, "X-Service-Workspace-Id: "), h("code", {}, created.workspace_id), " (proxy), or as ", h("code", {}, "Authorization: Bearer"), " (document API). See ", h("a", { href: "#/connect" }, "Connect your app"), "."),
  );
}

export async function keysPage({ view }) {
  const createdSlot = h("div");
  const listSlot = h("div", { "aria-live": "polite" });
  const limitsSlot = h("div");
  const name = h("input", { type: "text", name: "name", required: true, maxlength: "100", placeholder: "e.g. production backend" });
  const submit = h("button", { type: "submit", class: "button primary" }, "Create key");
  const status = h("div", { class: "form-status" });
  const form = h("form", { class: "inline-form" }, field("Key name", name), submit, status);

  async function refresh() {
    try {
      const { keys } = await api("GET", "/api/keys");
      listSlot.replaceChildren(
        dataTable({
          caption: "API keys of this workspace",
          empty: "No keys yet. Create one above to call the proxy or the document API.",
          rows: keys,
          columns: [
            { label: "Name", cell: (key) => key.name },
            { label: "Prefix", cell: (key) => h("code", {}, `${key.prefix}…`) },
            { label: "Created", cell: (key) => time(key.created_at) },
            { label: "Last used", cell: (key) => time(key.last_used_at) },
            { label: "Status", cell: (key) => (key.revoked_at ? badge("revoked", "bad") : badge("active", "ok")) },
            { label: "Limits", cell: (key) => limitsSummary(key.limits) },
            { label: "Actions", cell: (key) => (key.revoked_at ? h("span", { class: "muted" }, "revoked ", time(key.revoked_at)) : h("span", { class: "inline" }, limitsButton(key), revokeButton(key))) },
          ],
        }),
      );
    } catch (error) {
      listSlot.replaceChildren(errorNotice(error));
    }
  }

  /** The key's own limits, on top of the workspace's (Usage page). */
  function limitsButton(key) {
    const button = h("button", { type: "button", class: "button small", "aria-label": `Edit limits of key ${key.name}` }, "Limits");
    button.addEventListener("click", () => {
      limitsSlot.replaceChildren(
        h(
          "section",
          { class: "card", "aria-labelledby": "key-limits-title" },
          h("h2", { id: "key-limits-title" }, `Limits of key "${key.name}"`),
          h("p", { class: "muted" }, "Counted for this key alone, on top of the workspace's limits: the first one reached refuses (or, soft, warns)."),
          limitsForm({
            limits: key.limits,
            testId: "key-limits-form",
            save: (body) => api("PATCH", `/api/keys/${encodeURIComponent(key.id)}`, { limits: body }),
            onSaved: async () => {
              limitsSlot.replaceChildren();
              await refresh();
            },
          }),
        ),
      );
      limitsSlot.querySelector("input")?.focus();
    });
    return button;
  }

  function revokeButton(key) {
    const button = h("button", { type: "button", class: "button small danger", "aria-label": `Revoke key ${key.name}` }, "Revoke");
    button.addEventListener("click", async () => {
      const confirmed = await confirmAction({
        title: `Revoke "${key.name}"?`,
        message: `Requests using the key ${key.prefix}… are refused from the next request on. This cannot be undone.`,
        confirmLabel: "Revoke key",
      });
      if (!confirmed) return;
      try {
        await api("DELETE", `/api/keys/${encodeURIComponent(key.id)}`);
        toast(`Key "${key.name}" revoked`);
        await refresh();
      } catch (error) {
        listSlot.prepend(errorNotice(error));
      }
    });
    return button;
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const created = await busy(submit, status, () => api("POST", "/api/keys", { name: name.value.trim() || "default" }));
    if (!created) return;
    name.value = "";
    createdSlot.replaceChildren(newKeyPanel(created));
    await refresh();
    createdSlot.querySelector("input")?.focus();
  });

  append(view,
    h("p", { class: "breadcrumb" }, "Settings"),
    pageHeading("API Keys"),
    h("p", { class: "muted" }, "Keys let your applications use this workspace through the proxy and the document API."),
    h("section", { class: "card", "aria-labelledby": "create-key-title" }, h("h2", { id: "create-key-title" }, "Create a key"), form),
    createdSlot,
    h("section", { "aria-labelledby": "keys-title" }, h("h2", { id: "keys-title" }, "Keys"), listSlot),
    limitsSlot,
  );
  await refresh();
}
