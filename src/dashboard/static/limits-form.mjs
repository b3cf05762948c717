// The limits form, for the workspace's own (Usage) and each key's (Settings → API Keys): empty
// removes a limit. PATCH /api/workspace {limits} and PATCH /api/keys/{id} {limits} take the same body.

import { busy, field, toast } from "./components.mjs";
import { h } from "./dom.mjs";

export const LIMITS = [
  ["requests_per_minute", "Requests per minute", "1"],
  ["tokens_per_minute", "Tokens per minute", "1"],
  ["spend_per_day_usd", "Spend per UTC day (USD)", "0.01"],
  ["spend_per_month_usd", "Spend per UTC month (USD)", "0.01"],
];

/** "60 requests/min, $5.00/day", or "none". */
export function limitsSummary(limits) {
  const units = { requests_per_minute: (v) => `${v} requests/min`, tokens_per_minute: (v) => `${v} tokens/min`, spend_per_day_usd: (v) => `$${v.toFixed(2)}/day`, spend_per_month_usd: (v) => `$${v.toFixed(2)}/month` };
  const set = LIMITS.filter(([name]) => limits?.[name] !== null && limits?.[name] !== undefined).map(([name]) => units[name](limits[name]));
  if (set.length === 0) return "none";
  return `${set.join(", ")}${limits.soft ? " (soft)" : ""}`;
}

/** `save(body)` sends the limits; `onSaved` gets its answer. */
export function limitsForm({ limits, save, onSaved, testId = "limits-form" }) {
  const inputs = LIMITS.map(([name, , step]) => h("input", { type: "number", name, min: "0", step, value: limits?.[name] ?? "" }));
  const soft = h("input", { type: "checkbox", name: "soft", checked: limits?.soft === true });
  const submit = h("button", { type: "submit", class: "button primary" }, "Save limits");
  const status = h("div", { class: "form-status" });
  const form = h(
    "form",
    { class: "inline-form", "data-testid": testId },
    LIMITS.map(([, text], i) => field(text, inputs[i], "Empty = no limit.")),
    h("label", { class: "check" }, soft, " Soft: warn (header and evidence flag) instead of refusing"),
    h("div", { class: "filter-actions" }, submit),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { soft: soft.checked };
    LIMITS.forEach(([name], i) => (body[name] = inputs[i].value === "" ? null : Number(inputs[i].value)));
    const saved = await busy(submit, status, () => save(body));
    if (!saved) return;
    toast("Limits saved");
    onSaved(saved);
  });
  return form;
}
