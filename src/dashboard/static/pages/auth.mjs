// Sign up (free: creates the user's workspace, or the first account joins the CLI's lone one) and log in. Both start an HTTP-only cookie session.

import { api } from "../api.mjs";
import { busy, field, pageHeading } from "../components.mjs";
import { append, h } from "../dom.mjs";

function authForm({ view, onAuthenticated }, { title, intro, submitLabel, endpoint, withWorkspace, switchTo }) {
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true, maxlength: "254" });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: withWorkspace ? "new-password" : "current-password",
    required: true,
    minlength: "8",
    maxlength: "256",
  });
  const workspace = h("input", { type: "text", name: "workspace_name", maxlength: "100", autocomplete: "organization" });
  const submit = h("button", { type: "submit", class: "button primary" }, submitLabel);
  const status = h("div", { class: "form-status" });
  const form = h(
    "form",
    { class: "stack" },
    field("Email", email),
    field("Password", password, withWorkspace ? "At least 8 characters." : undefined),
    withWorkspace ? field("Workspace name (optional)", workspace, "Shown in the header; you can use your team or project name.") : null,
    status,
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { email: email.value, password: password.value };
    if (withWorkspace && workspace.value.trim()) body.workspace_name = workspace.value.trim();
    const data = await busy(submit, status, () => api("POST", endpoint, body));
    if (data) onAuthenticated(data);
  });
  append(view,
    h(
      "section",
      { class: "auth-card card" },
      h("p", { class: "brand-large" }, "Sieve"),
      pageHeading(title),
      h("p", { class: "muted" }, intro),
      form,
      h("p", {}, switchTo[0], " ", h("a", { href: switchTo[1] }, switchTo[2])),
    ),
  );
  email.focus();
}

export const loginPage = (context) =>
  authForm(context, {
    title: "Log in",
    intro: "Your workspace's requests, firewall, cache and documents.",
    submitLabel: "Log in",
    endpoint: "/api/auth/login",
    withWorkspace: false,
    switchTo: ["No account yet?", "#/signup", "Sign up free"],
  });

export const signupPage = (context) =>
  authForm(context, {
    title: "Create your free account",
    intro: "Signing up creates your workspace; you can create API keys right after. The first account on a server whose only workspace was made with `sieve keys create` joins that workspace.",
    submitLabel: "Sign up",
    endpoint: "/api/auth/signup",
    withWorkspace: true,
    switchTo: ["Already have an account?", "#/login", "Log in"],
  });
