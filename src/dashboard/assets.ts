/**
 * The dashboard's browser files. Each is imported `with { type: "file" }`, which gives its path:
 * the source file in development and the embedded copy inside the compiled binary (build.ts
 * bundles whatever the app imports this way), so the same `Bun.file(path)` serves both.
 * Every file under static/ must be listed here; test/dashboard/assets.test.ts checks that.
 */
import api from "./static/api.mjs" with { type: "file" };
import charts from "./static/charts.mjs" with { type: "file" };
import components from "./static/components.mjs" with { type: "file" };
import css from "./static/dashboard.css" with { type: "file" };
import dom from "./static/dom.mjs" with { type: "file" };
import evidence from "./static/evidence.mjs" with { type: "file" };
import format from "./static/format.mjs" with { type: "file" };
import limitsForm from "./static/limits-form.mjs" with { type: "file" };
import main from "./static/main.mjs" with { type: "file" };
import authPage from "./static/pages/auth.mjs" with { type: "file" };
import cachePage from "./static/pages/cache.mjs" with { type: "file" };
import connectPage from "./static/pages/connect.mjs" with { type: "file" };
import documentsPage from "./static/pages/documents.mjs" with { type: "file" };
import firewallPage from "./static/pages/firewall.mjs" with { type: "file" };
import keysPage from "./static/pages/keys.mjs" with { type: "file" };
import requestsPage from "./static/pages/requests.mjs" with { type: "file" };
import routingPage from "./static/pages/routing.mjs" with { type: "file" };
import workspacePage from "./static/pages/workspace.mjs" with { type: "file" };
import dataProtectionPage from "./static/pages/data-protection.mjs" with { type: "file" };
import usagePage from "./static/pages/usage.mjs" with { type: "file" };

export const DASHBOARD_ASSET_PREFIX = "/dashboard/assets/";

/** URL path below DASHBOARD_ASSET_PREFIX → file path. */
export const DASHBOARD_ASSETS: ReadonlyMap<string, string> = new Map([
  ["dashboard.css", css],
  ["main.mjs", main],
  ["api.mjs", api],
  ["dom.mjs", dom],
  ["format.mjs", format],
  ["components.mjs", components],
  ["charts.mjs", charts],
  ["evidence.mjs", evidence],
  ["limits-form.mjs", limitsForm],
  ["pages/auth.mjs", authPage],
  ["pages/keys.mjs", keysPage],
  ["pages/requests.mjs", requestsPage],
  ["pages/firewall.mjs", firewallPage],
  ["pages/cache.mjs", cachePage],
  ["pages/documents.mjs", documentsPage],
  ["pages/connect.mjs", connectPage],
  ["pages/routing.mjs", routingPage],
  ["pages/workspace.mjs", workspacePage],
  ["pages/data-protection.mjs", dataProtectionPage],
  ["pages/usage.mjs", usagePage],
]);

export function assetContentType(name: string): string {
  if (name.endsWith(".css")) return "text/css; charset=utf-8";
  if (name.endsWith(".mjs")) return "text/javascript; charset=utf-8";
  return "application/octet-stream";
}
