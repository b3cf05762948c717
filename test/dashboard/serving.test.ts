import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { DASHBOARD_ASSETS } from "../../src/dashboard/assets";
import { DASHBOARD_CSP } from "../../src/dashboard";
import { startSieve, type TestSieve } from "../support/sieve";

const STATIC_DIR = join(import.meta.dir, "../../src/dashboard/static");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [relative(STATIC_DIR, path)];
  });
}

let sieve: TestSieve;

beforeAll(async () => {
  sieve = await startSieve();
});

afterAll(async () => {
  await sieve.close();
});

describe("the dashboard's files", () => {
  test("every file under static/ is registered as an asset (so the binary embeds it), and nothing else", () => {
    expect([...DASHBOARD_ASSETS.keys()].sort()).toEqual(filesUnder(STATIC_DIR).sort());
  });

  test("no asset loads anything from another origin, and none writes HTML from strings", () => {
    for (const name of DASHBOARD_ASSETS.keys()) {
      const source = readFileSync(join(STATIC_DIR, name), "utf8");
      expect({ name, remote: source.match(/(?:src|href|url)\s*[=(]\s*["']?(?:https?:)?\/\//gi) }).toEqual({ name, remote: null });
      expect({ name, html: source.match(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/g) }).toEqual({ name, html: null });
    }
  });
});

describe("serving", () => {
  test("/ redirects to /dashboard", async () => {
    const response = await fetch(`${sieve.url}/`, { redirect: "manual" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/dashboard");
  });

  test("/dashboard is the HTML shell with a self-only Content-Security-Policy", async () => {
    const response = await fetch(`${sieve.url}/dashboard`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = response.headers.get("content-security-policy")!;
    expect(csp).toBe(DASHBOARD_CSP);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/dashboard/assets/main.mjs"></script>');
    expect(html).not.toMatch(/<script>|<style>|style=/); // nothing inline: the CSP would block it
  });

  test("every asset is served with its type, the CSP and an ETag that revalidates to 304", async () => {
    for (const name of DASHBOARD_ASSETS.keys()) {
      const response = await fetch(`${sieve.url}/dashboard/assets/${name}`);
      expect({ name, status: response.status }).toEqual({ name, status: 200 });
      expect(response.headers.get("content-type")).toBe(name.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
      expect(await response.text()).toBe(readFileSync(join(STATIC_DIR, name), "utf8"));
      const again = await fetch(`${sieve.url}/dashboard/assets/${name}`, { headers: { "if-none-match": response.headers.get("etag")! } });
      expect(again.status).toBe(304);
    }
  });

  test("unknown assets and path tricks are 404", async () => {
    for (const path of ["nope.mjs", "../index.ts", "%2e%2e/assets.ts", "pages", ""]) {
      const response = await fetch(`${sieve.url}/dashboard/assets/${path}`);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
    }
  });

  test("a route the server lacks answers the body the pages read as 'not available on this server'", async () => {
    // (Unknown /v1 paths belong to the provider and are passed through; Sieve's own prefixes answer the same 404 as this.)
    const response = await fetch(`${sieve.url}/api/not-a-feature`, { headers: { accept: "application/json" } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "no such route", status_code: 404, code: "not_found" }); // ApiError.routeMissing in api.mjs
  });

  test("the dashboard routes are not in the API's OpenAPI document", async () => {
    const spec = (await (await fetch(`${sieve.url}/openapi/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(spec.paths).filter((path) => path === "/" || path.startsWith("/dashboard"))).toEqual([]);
  });
});
