// The dashboard's entry: the session, the header, and hash routing (#/requests, #/documents/<id>…).
// Each page is a function that fills a fresh container; state that belongs in the address
// (filters, paging, the selected variant) lives in the hash's query so links can be shared.

import { api, setCsrfToken, whenSessionEnds } from "./api.mjs";
import { copyButton, errorNotice, toast } from "./components.mjs";
import { h, replaceChildren } from "./dom.mjs";
import { loginPage, signupPage } from "./pages/auth.mjs";
import { cachePage } from "./pages/cache.mjs";
import { connectPage } from "./pages/connect.mjs";
import { documentPage, documentsPage } from "./pages/documents.mjs";
import { firewallPage } from "./pages/firewall.mjs";
import { keysPage } from "./pages/keys.mjs";
import { requestDetailPage, requestsPage } from "./pages/requests.mjs";
import { routingPage } from "./pages/routing.mjs";
import { workspacePage } from "./pages/workspace.mjs";
import { dataProtectionPage } from "./pages/data-protection.mjs";
import { usagePage } from "./pages/usage.mjs";

const HOME = "#/requests";

const routes = [
  { path: /^\/login$/, page: loginPage, title: "Log in", open: true },
  { path: /^\/signup$/, page: signupPage, title: "Sign up", open: true },
  { path: /^\/requests$/, page: requestsPage, title: "Requests", section: "requests" },
  { path: /^\/requests\/([^/]+)$/, page: requestDetailPage, title: "Request", section: "requests" },
  { path: /^\/firewall$/, page: firewallPage, title: "Firewall", section: "firewall" },
  { path: /^\/cache$/, page: cachePage, title: "Cache", section: "cache" },
  { path: /^\/documents$/, page: documentsPage, title: "Documents", section: "documents" },
  { path: /^\/documents\/([^/]+)$/, page: documentPage, title: "Document", section: "documents" },
  { path: /^\/routing$/, page: routingPage, title: "Routing", section: "routing" },
  { path: /^\/data-protection$/, page: dataProtectionPage, title: "Data protection", section: "data-protection" },
  { path: /^\/usage$/, page: usagePage, title: "Usage", section: "usage" },
  { path: /^\/connect$/, page: connectPage, title: "Connect your app", section: "connect" },
  { path: /^\/settings\/keys$/, page: keysPage, title: "Settings → API Keys", section: "settings" },
  { path: /^\/settings\/workspace$/, page: workspacePage, title: "Settings → Workspace", section: "workspace" },
];

const sections = [
  ["requests", "#/requests", "Requests"],
  ["firewall", "#/firewall", "Firewall"],
  ["cache", "#/cache", "Cache"],
  ["documents", "#/documents", "Documents"],
  ["routing", "#/routing", "Routing"],
  ["data-protection", "#/data-protection", "Data protection"],
  ["usage", "#/usage", "Usage"],
  ["connect", "#/connect", "Connect your app"],
  ["settings", "#/settings/keys", "Settings → API Keys"],
  ["workspace", "#/settings/workspace", "Settings → Workspace"],
];

/** { user, workspace, csrf_token } while logged in. */
let session = null;
let afterLogin = HOME;
let shownPath = null;

function startSession(data) {
  session = data;
  setCsrfToken(data.csrf_token);
}

function endSession() {
  session = null;
  setCsrfToken(null);
}

const navigate = (hash) => {
  if (location.hash === hash) void render();
  else location.hash = hash;
};

function renderHeader(section) {
  const header = document.getElementById("app-header");
  if (!session) {
    header.hidden = true;
    header.replaceChildren();
    return;
  }
  const { workspace, user } = session;
  const logout = h("button", { type: "button", class: "button small" }, "Log out");
  logout.addEventListener("click", async () => {
    await api("POST", "/api/auth/logout").catch(() => undefined);
    endSession();
    navigate("#/login");
  });
  replaceChildren(
    header,
    h(
      "div",
      { class: "header-top" },
      h("a", { class: "brand", href: HOME }, "Sieve"),
      h(
        "div",
        { class: "workspace", "aria-label": "Workspace" },
        h("span", { class: "workspace-name", title: "Workspace" }, workspace.name),
        h("span", { class: "workspace-id" }, h("span", { class: "muted" }, "Workspace ID "), h("code", { "data-testid": "workspace-id" }, workspace.id), copyButton(workspace.id, "workspace ID")),
      ),
      h("div", { class: "account" }, h("span", { class: "muted" }, user.email), logout),
    ),
    h(
      "nav",
      { class: "main-nav", "aria-label": "Dashboard" },
      h(
        "ul",
        {},
        sections.map(([id, href, text]) => h("li", {}, h("a", { href, "aria-current": id === section ? "page" : undefined }, text))),
      ),
    ),
  );
  header.hidden = false;
}

async function render() {
  const hash = location.hash.startsWith("#/") ? location.hash : HOME;
  const [path, search = ""] = hash.slice(1).split("?");
  const route = routes.find((candidate) => candidate.path.test(path));
  if (!route) return navigate(HOME);
  if (!route.open && !session) {
    afterLogin = hash;
    return navigate("#/login");
  }
  if (route.open && session) return navigate(HOME);

  renderHeader(route.section);
  document.title = `${route.title} · Sieve`;
  const main = document.getElementById("main");
  const view = h("div", { class: "view" });
  main.replaceChildren(view);
  // After a navigation focus goes to the new page's heading; a fresh load keeps the browser's
  // start (so the first Tab reaches "Skip to content").
  const pathChanged = shownPath !== null && shownPath !== path;
  shownPath = path;
  const params = route.path.exec(path).slice(1).map(decodeURIComponent);
  const context = {
    view,
    params,
    query: new URLSearchParams(search),
    session,
    navigate,
    /** Same page, new query: filters and paging are part of the address (back/forward work). */
    setQuery(values) {
      const next = new URLSearchParams();
      for (const [name, value] of Object.entries(values)) if (value !== undefined && value !== null && value !== "") next.set(name, String(value));
      const query = next.toString();
      navigate(`#${path}${query ? `?${query}` : ""}`);
    },
    /** Draws the page again with fresh data. */
    refresh: () => void render(),
    onAuthenticated(data) {
      startSession(data);
      const target = afterLogin;
      afterLogin = HOME;
      navigate(target);
    },
  };
  try {
    await route.page(context);
  } catch (error) {
    view.append(errorNotice(error));
  }
  if (pathChanged && !view.contains(document.activeElement)) (view.querySelector("h1") ?? main).focus();
}

whenSessionEnds(() => {
  if (!session) return;
  endSession();
  toast("Your session ended; please log in again.");
  navigate("#/login");
});

// The skip link moves focus without touching the hash (which is the router's).
document.querySelector(".skip-link").addEventListener("click", (event) => {
  event.preventDefault();
  document.getElementById("main").focus();
});

async function start() {
  try {
    startSession(await api("GET", "/api/auth/me"));
  } catch {
    endSession();
  }
  window.addEventListener("hashchange", () => void render());
  await render();
}

void start();
