// UI pieces the pages share: headings, notices, tables, pagers, copy buttons, confirmations.

import { h, uid } from "./dom.mjs";

/** The page's h1; the router moves focus to it after each navigation (screen readers hear the new page). */
export const pageHeading = (text) => h("h1", { tabindex: "-1" }, text);

export function toast(message) {
  const region = document.getElementById("toast");
  region.textContent = message;
  region.classList.add("visible");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => region.classList.remove("visible"), 2500);
}

async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
  // Plain-http origins other than localhost have no Clipboard API.
  const scratch = h("textarea", { class: "visually-hidden", readonly: true, "aria-hidden": "true" });
  scratch.value = text;
  document.body.append(scratch);
  scratch.select();
  const copied = document.execCommand("copy");
  scratch.remove();
  if (!copied) throw new Error("copy refused");
}

/** A "Copy" button; `what` names the thing for screen readers ("Copy workspace ID"). */
export function copyButton(text, what) {
  const button = h("button", { type: "button", class: "button small", "aria-label": `Copy ${what}` }, "Copy");
  button.addEventListener("click", async () => {
    try {
      await copyText(typeof text === "function" ? text() : text);
      button.textContent = "Copied";
      toast(`${what.charAt(0).toUpperCase()}${what.slice(1)} copied to the clipboard`);
      setTimeout(() => (button.textContent = "Copy"), 1500);
    } catch {
      toast("Could not copy: select the text and copy it by hand");
    }
  });
  return button;
}

/** Asks before a destructive action; resolves true only on an explicit confirm. Esc cancels. */
export function confirmAction({ title, message, confirmLabel }) {
  return new Promise((resolve) => {
    const titleId = uid("dialog-title");
    const cancel = h("button", { type: "button", class: "button", value: "cancel" }, "Cancel");
    const confirm = h("button", { type: "button", class: "button danger", value: "confirm" }, confirmLabel);
    const dialog = h(
      "dialog",
      { class: "dialog", "aria-labelledby": titleId },
      h("h2", { id: titleId }, title),
      h("p", {}, message),
      h("div", { class: "actions" }, cancel, confirm),
    );
    cancel.addEventListener("click", () => dialog.close("cancel"));
    confirm.addEventListener("click", () => dialog.close("confirm"));
    dialog.addEventListener("close", () => {
      dialog.remove();
      resolve(dialog.returnValue === "confirm");
    });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus(); // the safe choice is the default
  });
}

export function errorNotice(error) {
  const message = error?.routeMissing ? "This feature's API is not available on this server." : error instanceof Error ? error.message : String(error);
  return h("div", { class: "notice error", role: "alert" }, message);
}

/** The clear "not here yet" state for a feature whose API this server does not have. */
export const unavailable = (feature, path) =>
  h(
    "div",
    { class: "notice unavailable", role: "status" },
    h("strong", {}, `${feature} is not available on this server.`),
    " Its API (",
    h("code", {}, path),
    ") is not installed in this build, so there is nothing to show here yet.",
  );

/** What to show when loading failed: "not available" for a missing API, the error otherwise. */
export const failure = (error, feature, path) => (error?.routeMissing ? unavailable(feature, path) : errorNotice(error));

/**
 * A data table. columns: [{ label, cell(row) → node or text, numeric? }].
 * `caption` names the table for assistive technology.
 */
export function dataTable({ caption, columns, rows, empty }) {
  if (rows.length === 0) return h("p", { class: "empty" }, empty);
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, caption),
      h("thead", {}, h("tr", {}, columns.map((column) => h("th", { scope: "col", class: column.numeric ? "numeric" : undefined }, column.label)))),
      h("tbody", {}, rows.map((row) => h("tr", {}, columns.map((column) => h("td", { class: column.numeric ? "numeric" : undefined }, column.cell(row)))))),
    ),
  );
}

/** Previous / next paging over offset and limit, with "21–40 of 73". */
export function pager({ offset, limit, total, shown, onChange, label }) {
  const first = total === 0 ? 0 : offset + 1;
  const last = offset + shown;
  const previous = h("button", { type: "button", class: "button small", disabled: offset === 0 }, "← Previous");
  const next = h("button", { type: "button", class: "button small", disabled: last >= total }, "Next →");
  previous.addEventListener("click", () => onChange(Math.max(0, offset - limit)));
  next.addEventListener("click", () => onChange(offset + limit));
  return h("nav", { class: "pager", "aria-label": label }, previous, h("span", { class: "pager-status" }, `${first}–${last} of ${total}`), next);
}

/** A <dl> of [term, value] pairs. */
export const keyValues = (pairs) =>
  h(
    "dl",
    { class: "key-values" },
    pairs.map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]),
  );

/** A labelled form control; `hint` becomes its accessible description. */
export function field(labelText, control, hint) {
  control.id ||= uid("field");
  const hintNode = hint ? h("span", { class: "hint", id: uid("hint") }, hint) : null;
  if (hintNode) control.setAttribute("aria-describedby", hintNode.id);
  return h("div", { class: "field" }, h("label", { for: control.id }, labelText), control, hintNode);
}

/** A <select> from [value, text] pairs. */
export const select = (name, options, current) =>
  h(
    "select",
    { name },
    options.map(([value, text]) => h("option", { value, selected: value === (current ?? "") }, text)),
  );

/** Runs an async form action with the submit button disabled and errors shown in `status`. */
export async function busy(button, status, action) {
  button.disabled = true;
  status.replaceChildren();
  try {
    return await action();
  } catch (error) {
    status.replaceChildren(errorNotice(error));
    return undefined;
  } finally {
    button.disabled = false;
  }
}

/** A small label; tone is ok, caution, bad or neutral (colours in dashboard.css). */
export function badge(text, tone) {
  return h("span", { class: `badge ${tone ?? "neutral"}` }, text);
}

/** The tone of a firewall action, wherever one is shown. */
export const firewallTone = (action) => ({ allow: "ok", log: "neutral", warn: "caution", block: "bad" })[action] ?? "neutral";
