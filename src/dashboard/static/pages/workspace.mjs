// Settings → Workspace: the workspace's name, body logging, system-prompt scanning and its own
// provider URLs (PATCH /api/workspace; the provider URLs need an admin).

import { api, get } from "../api.mjs";
import { busy, failure, field, pageHeading, toast } from "../components.mjs";
import { append, h } from "../dom.mjs";

const PATH = "/api/workspace";

function settingsForm(settings, onSaved) {
  const name = h("input", { type: "text", name: "name", required: true, maxlength: "100", value: settings.name });
  const logBodies = h("input", { type: "checkbox", name: "log_bodies", checked: settings.log_bodies });
  const scanSystem = h("input", { type: "checkbox", name: "firewall_scan_system", checked: settings.firewall_scan_system });
  const upstream = h("input", { type: "url", name: "upstream_url", class: "wide", value: settings.upstream_url ?? "", placeholder: settings.effective_upstream_url });
  const anthropic = h("input", { type: "url", name: "anthropic_upstream_url", class: "wide", value: settings.anthropic_upstream_url ?? "", placeholder: settings.effective_anthropic_upstream_url });
  const submit = h("button", { type: "submit", class: "button primary" }, "Save settings");
  const status = h("div", { class: "form-status" });
  const form = h(
    "form",
    { class: "inline-form", "aria-label": "Workspace settings" },
    field("Workspace name", name),
    h("label", { class: "check" }, logBodies, " Log request and response bodies in the evidence log"),
    h("label", { class: "check" }, scanSystem, " Scan system prompts with the firewall (off: an app's own instructions are trusted)"),
    field("OpenAI-compatible provider URL", upstream, `Empty = the server's (${settings.effective_upstream_url}). Include the version segment, e.g. …/v1.`),
    field("Anthropic provider URL", anthropic, `Empty = the server's (${settings.effective_anthropic_upstream_url}).`),
    h("div", { class: "filter-actions" }, submit),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const saved = await busy(submit, status, () =>
      api("PATCH", PATH, {
        name: name.value.trim(),
        log_bodies: logBodies.checked,
        firewall_scan_system: scanSystem.checked,
        upstream_url: upstream.value.trim() || null,
        anthropic_upstream_url: anthropic.value.trim() || null,
      }),
    );
    if (!saved) return;
    toast("Workspace settings saved");
    onSaved(saved);
    // The server may accept a URL and still warn about it (e.g. no /v1 on an OpenAI-compatible URL).
    for (const warning of saved.warnings ?? []) status.append(h("p", { class: "notice caution", role: "status" }, warning));
  });
  return form;
}

export async function workspacePage({ view }) {
  const slot = h("div", { "aria-live": "polite" }, h("p", { class: "loading" }, "Loading…"));
  append(view,
    pageHeading("Settings → Workspace"),
    h("p", { class: "muted" }, "Settings of this workspace. Server-wide defaults are the flags Sieve was started with. ", h("a", { href: "#/settings/keys" }, "API keys"), " are on their own page."),
    h("section", { class: "card", "aria-labelledby": "workspace-settings-title" }, h("h2", { id: "workspace-settings-title" }, "Workspace"), slot),
  );
  const show = (settings) => slot.replaceChildren(settingsForm(settings, show));
  try {
    show(await get(PATH));
  } catch (error) {
    slot.replaceChildren(failure(error, "Workspace settings", PATH));
  }
}
