/**
 * Issue #56 (hardening round 2), defect 2: routes that take a few JSON fields read and parsed
 * whatever they were sent. POST /api/auth/signup and /api/auth/login need no credentials, and a
 * 48 MB body was received whole and parsed before its 400; 16 in parallel took the server to
 * 2.1 GB. Each such route now declares a small limit, enforced while the body arrives: a declared
 * Content-Length over it is answered 413 at once, a chunked body is cut off at the first chunk
 * past it, and nothing is parsed (README, "Limits": the per-route table).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_TEST_CHARS } from "../../src/firewall/model";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";
import { rawExchange, statusOf } from "./raw-http";

/** The documented limit of small JSON routes (README, "Limits"). */
const SMALL_JSON_BODY_BYTES = 16 * 1024;

let sieve: TestSieve;
let tenant: Tenant;
let documentId: string;

beforeAll(async () => {
  // A body that never arrives is a 408 after this; a 413 must come before any of it is awaited.
  sieve = await startSieve({ bodyTimeoutMs: 3000 });
  tenant = await sieve.tenant("small-bodies");
  const upload = await fetch(`${sieve.url}/api/documents`, {
    method: "POST",
    headers: { ...tenant.bearer, "content-type": "application/json" },
    body: JSON.stringify({ filename: "notes.md", text: "# Notes\n\nA few words to make variants of." }),
  });
  documentId = ((await upload.json()) as any).document_id;
});
afterAll(() => sieve.close());

/** A JSON object of exactly `bytes` bytes: one field padded with letters. */
const jsonOf = (bytes: number, field = "name") => {
  const shell = JSON.stringify({ [field]: "" });
  return JSON.stringify({ [field]: "x".repeat(bytes - shell.length) });
};

type Route = [method: string, path: string, auth: () => Record<string, string>];
const SMALL_ROUTES: Route[] = [
  ["POST", "/api/auth/signup", () => ({})],
  ["POST", "/api/auth/login", () => ({})],
  ["POST", "/api/auth/logout", () => ({})],
  ["POST", "/api/keys", () => tenant.bearer],
  ["PATCH", "/api/workspace", () => tenant.bearer],
  ["POST", "/api/documents/{document}/variants", () => tenant.bearer],
  ["PATCH", "/v1/cache/settings", () => tenant.serviceHeaders],
  ["POST", "/v1/firewall/patterns", () => tenant.serviceHeaders],
  ["PATCH", "/v1/firewall/patterns/no-such-pattern", () => tenant.serviceHeaders],
  ["PATCH", "/v1/firewall/families/jailbreak", () => tenant.serviceHeaders],
];

const send = (method: string, path: string, auth: Record<string, string>, body: string) =>
  fetch(`${sieve.url}${path}`, { method, headers: { "content-type": "application/json", ...auth }, body });

describe("small JSON routes: 413 over 16 KiB, before anything is parsed", () => {
  for (const [method, route, auth] of SMALL_ROUTES) {
    test(`${method} ${route}: one byte over → 413 naming the limit; at the limit → the route's own answer`, async () => {
      const path = route.replace("{document}", documentId);
      const over = await send(method, path, auth(), jsonOf(SMALL_JSON_BODY_BYTES + 1));
      expect(over.status).toBe(413);
      expect(await over.json()).toEqual({ detail: `body: over the ${SMALL_JSON_BODY_BYTES}-byte limit of ${method} ${path}`, status_code: 413, code: "payload_too_large" });
      const at = await send(method, path, auth(), jsonOf(SMALL_JSON_BODY_BYTES));
      expect(at.status).not.toBe(413);
    });
  }

  test("POST /v1/firewall/test takes its longest text even when every character is escaped, and no more", async () => {
    const longest = JSON.stringify({ text: "\u0001".repeat(MAX_TEST_CHARS) });
    const accepted = await send("POST", "/v1/firewall/test", tenant.serviceHeaders, longest);
    expect(accepted.status).not.toBe(413);
    const over = await send("POST", "/v1/firewall/test", tenant.serviceHeaders, jsonOf(longest.length + SMALL_JSON_BODY_BYTES + 1, "text"));
    expect(over.status).toBe(413);
    expect(((await over.json()) as any).detail).toMatch(/^body: over the \d+-byte limit of POST \/v1\/firewall\/test$/);
  });
});

describe("the limit holds while the body arrives", () => {
  const head = (path: string, framing: string) => `POST ${path} HTTP/1.1\r\nHost: sieve\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

  test("a declared 48 MB login is answered 413 without waiting for its body, and the connection is closed", async () => {
    const { text, closedByServer } = await rawExchange(sieve.port, head("/api/auth/login", `Content-Length: ${48 * 1024 * 1024}`) + '{"email":"a@b.example","password":"');
    expect(statusOf(text)).toBe(413);
    expect(text).toContain(`"body: over the ${SMALL_JSON_BODY_BYTES}-byte limit of POST /api/auth/login"`);
    expect(closedByServer).toBe(true);
  });

  test("a chunked sign-up is cut off at the first chunk past the limit, though the client never ends it", async () => {
    const chunk = `{"email":"a@b.example","password":"${"x".repeat(20 * 1024)}`;
    const { text, closedByServer } = await rawExchange(sieve.port, head("/api/auth/signup", "Transfer-Encoding: chunked") + `${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    expect(statusOf(text)).toBe(413);
    expect(text).toContain("payload_too_large");
    expect(closedByServer).toBe(true);
  });

  test("16 declared 48 MB sign-ups at once: every one 413, the server still answers", async () => {
    const results = await Promise.all(
      Array.from({ length: 16 }, () => rawExchange(sieve.port, head("/api/auth/signup", `Content-Length: ${48 * 1024 * 1024}`) + '{"email":"')),
    );
    expect(results.map((result) => statusOf(result.text))).toEqual(Array(16).fill(413));
    expect((await fetch(`${sieve.url}/healthz`)).status).toBe(200);
  });

  test("a login of ordinary size still logs in (or says why not)", async () => {
    const response = await send("POST", "/api/auth/login", {}, JSON.stringify({ email: "nobody@example.com", password: "not the password" }));
    expect(response.status).toBe(401);
  });
});
