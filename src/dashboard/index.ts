import { Elysia } from "elysia";
import { httpError } from "../http/errors";
import { assetContentType, DASHBOARD_ASSETS } from "./assets";
import { DASHBOARD_SHELL } from "./shell";

/**
 * Self only: scripts, styles and API calls come from this origin, nothing inline, no frames.
 * Charts are SVG elements built through the DOM, which this allows.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const SECURITY_HEADERS = {
  "content-security-policy": DASHBOARD_CSP,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

// Revalidated on every load (cheap 304s) so a new binary's assets are picked up at once.
const REVALIDATE = "no-cache";

const etags = new Map<string, string>();

async function etagOf(path: string): Promise<string> {
  let etag = etags.get(path);
  if (!etag) {
    etag = `"${new Bun.CryptoHasher("sha1").update(await Bun.file(path).bytes()).digest("hex")}"`;
    etags.set(path, etag);
  }
  return etag;
}

async function assetResponse(name: string, ifNoneMatch: string | null): Promise<Response> {
  const path = DASHBOARD_ASSETS.get(name);
  if (!path) throw httpError(404, "not_found", "no such dashboard asset");
  const etag = await etagOf(path);
  const headers = { ...SECURITY_HEADERS, "content-type": assetContentType(name), "cache-control": REVALIDATE, etag };
  if (ifNoneMatch === etag) return new Response(null, { status: 304, headers });
  return new Response(Bun.file(path), { headers });
}

const shellResponse = () =>
  new Response(DASHBOARD_SHELL, { headers: { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8", "cache-control": REVALIDATE } });

/** The web dashboard: one HTML shell, its embedded browser modules, and `/` sending people to it. */
export const dashboardController = () =>
  new Elysia({ detail: { hide: true } })
    .get("/", () => new Response(null, { status: 302, headers: { location: "/dashboard" } }))
    .get("/dashboard", shellResponse)
    .get("/dashboard/", shellResponse)
    .get("/dashboard/assets/*", ({ params, request }) => assetResponse(params["*"], request.headers.get("if-none-match")));
