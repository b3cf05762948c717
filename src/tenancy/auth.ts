import { Elysia } from "elysia";
import type { AppContext } from "../runtime/context";
import { HttpError, httpError } from "../http/errors";
import { admitRequest, limitExceededBody, limitHeaders, limitMessage } from "../usage/admission";
import { WorkspaceScope } from "./scope";
import { API_KEY_PATTERN, API_KEY_PREFIX, constantTimeEqual } from "./secrets";
import { resolveApiKey, resolveSession, type ActiveSession } from "./service";

export const SESSION_COOKIE = "sieve_session";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const WHERE_KEYS_COME_FROM = "create a key with `sieve keys create` or in the dashboard under Settings, API keys";

const unauthorized = (detail: string) => httpError(401, "unauthorized", detail, { "www-authenticate": "Bearer" });

type Headers = Record<string, string | undefined>;

/** A key from a header, checked for shape first so junk never reaches the database. */
async function keyScope(ctx: AppContext, presented: string | undefined, header: string, admit: boolean): Promise<WorkspaceScope> {
  if (!presented) throw unauthorized(`missing ${header}: ${WHERE_KEYS_COME_FROM}`);
  if (!API_KEY_PATTERN.test(presented)) throw unauthorized(`malformed API key in ${header}: Sieve keys begin with ${API_KEY_PREFIX}; ${WHERE_KEYS_COME_FROM}`);
  const owner = await resolveApiKey(ctx.database, presented);
  if (!owner) throw unauthorized(`unknown or revoked API key in ${header}: this server's database has no such active key (\`sieve keys list\` shows them; check --data-dir)`);
  const scope = new WorkspaceScope(ctx.database, owner.workspaceId, { keyId: owner.keyId, userId: null, keyRole: owner.role, keyLimits: owner.limits });
  // One budget per workspace (a new key must not bring a fresh one), and each key's own. The
  // proxy admits its requests itself, to refuse them in the caller's dialect.
  if (admit) {
    const { refused } = await admitRequest(ctx, scope, { spending: false });
    if (refused) throw new HttpError(429, "rate_limited", limitMessage(refused), limitHeaders(refused, ctx.usage.limits.now()), limitExceededBody(refused, {}));
  }
  return scope;
}

function bearer(headers: Headers): string | undefined {
  const value = headers.authorization;
  if (!value) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(value.trim());
  return match ? match[1]!.trim() : value.trim();
}

/**
 * Spec §5, proxy and firewall paths: X-Service-Api-Key, and X-Service-Workspace-Id if sent. A key
 * belongs to one workspace, so the workspace header is optional; when sent it must name the key's
 * workspace (403 otherwise). Without a key header, a dashboard session is accepted instead (see sessionScope).
 */
export async function authenticateServiceHeaders(ctx: AppContext, request: Request, headers: Headers, admit = true): Promise<WorkspaceScope> {
  const presented = headers["x-service-api-key"]?.trim();
  if (!presented) return (await sessionScope(ctx, request, headers)) ?? throwUnauthorized(`missing X-Service-Api-Key: send your Sieve API key in the X-Service-Api-Key header (the provider's key stays in Authorization); ${WHERE_KEYS_COME_FROM}`);
  return serviceKeyScope(ctx, presented, headers, admit);
}

async function serviceKeyScope(ctx: AppContext, presented: string, headers: Headers, admit: boolean): Promise<WorkspaceScope> {
  const workspaceId = headers["x-service-workspace-id"]?.trim();
  const scope = await keyScope(ctx, presented, "X-Service-Api-Key", admit);
  if (!workspaceId) return scope;
  if (!UUID.test(workspaceId)) throw httpError(400, "invalid_request", "X-Service-Workspace-Id must be a UUID (the workspace id `sieve keys create` printed), or leave it out: the key implies its workspace");
  if (!constantTimeEqual(workspaceId.toLowerCase(), scope.workspaceId.toLowerCase())) {
    throw httpError(403, "forbidden", "this API key does not belong to the workspace in X-Service-Workspace-Id: send the key's own workspace id, or leave the header out (the key implies its workspace)");
  }
  return scope;
}

/**
 * Spec §5, document API (and key management): Authorization: Bearer <API_KEY>; the proxy's
 * X-Service-Api-Key (+ optional X-Service-Workspace-Id) works too, so one client setup serves both
 * APIs; or a dashboard session. When both headers carry Sieve keys they must be the same key.
 */
export async function authenticateBearer(ctx: AppContext, request: Request, headers: Headers): Promise<WorkspaceScope> {
  const serviceKey = headers["x-service-api-key"]?.trim();
  if (serviceKey) {
    const other = bearer(headers);
    if (other && API_KEY_PATTERN.test(other) && !constantTimeEqual(other, serviceKey)) {
      throw httpError(400, "invalid_request", "Authorization and X-Service-Api-Key carry two different Sieve keys: send one of them");
    }
    return serviceKeyScope(ctx, serviceKey, headers, true);
  }
  if (!headers.authorization) {
    return (await sessionScope(ctx, request, headers)) ?? throwUnauthorized(`missing Authorization: Bearer <API_KEY> (or X-Service-Api-Key): ${WHERE_KEYS_COME_FROM}`);
  }
  return keyScope(ctx, bearer(headers), "Authorization", true);
}

export async function sessionFromCookie(ctx: AppContext, cookieHeader: string | undefined): Promise<{ token: string; session: ActiveSession } | undefined> {
  const token = readCookie(cookieHeader, SESSION_COOKIE);
  if (!token) return undefined;
  const session = await resolveSession(ctx.database.db, token);
  return session ? { token, session } : undefined;
}

/**
 * The dashboard calls the same APIs with its HTTP-only session cookie. State changes must echo
 * the session's CSRF token in X-CSRF-Token (the cookie is also SameSite=Strict).
 */
async function sessionScope(ctx: AppContext, request: Request, headers: Headers): Promise<WorkspaceScope | undefined> {
  const found = await sessionFromCookie(ctx, headers.cookie);
  if (!found) return undefined;
  const mutating = !["GET", "HEAD", "OPTIONS"].includes(request.method);
  if (mutating && !constantTimeEqual(headers["x-csrf-token"] ?? "", found.session.csrfToken)) {
    throw httpError(403, "csrf_failed", "missing or wrong X-CSRF-Token for this session");
  }
  const { user } = found.session;
  return new WorkspaceScope(ctx.database, user.workspaceId, { keyId: null, userId: user.id });
}

function throwUnauthorized(detail: string): never {
  throw unauthorized(detail);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return undefined;
}

/** What only a dashboard session or an admin key may do (`what` names it in the 403). */
export function requireAdmin(scope: WorkspaceScope, what: string): void {
  if (scope.actor.userId === null && scope.actor.keyRole !== "admin") {
    throw httpError(403, "forbidden", `${what} needs a dashboard session or an admin key; this is a service key`);
  }
}

/** A service key cannot mint more keys or revoke its siblings. */
export const requireKeyManager = (scope: WorkspaceScope) => requireAdmin(scope, "managing API keys");

/**
 * Plugins that give routes a `scope`; `as: "scoped"` applies them to the routes of the plugin that
 * uses them. `derive` (Elysia's transform stage) runs before the route's schema validation, unlike
 * `resolve`: a caller without a valid key gets 401, never a validation error describing the body
 * the route expects.
 */
export const serviceKeyAuth = (ctx: AppContext, { admit = true } = {}) =>
  new Elysia({ name: "auth.service-headers", seed: admit }).derive({ as: "scoped" }, async ({ request, headers }) => ({ scope: await authenticateServiceHeaders(ctx, request, headers, admit) }));

export const bearerKeyAuth = (ctx: AppContext) =>
  new Elysia({ name: "auth.bearer" }).derive({ as: "scoped" }, async ({ request, headers }) => ({ scope: await authenticateBearer(ctx, request, headers) }));
