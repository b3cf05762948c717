import { Elysia } from "elysia";
import { mergePolicy } from "../data-protection/service";
import type { AppContext } from "../runtime/context";
import { upstreamUrlProblem } from "../egress/upstream-target";
import { baseUrlWarning } from "../proxy/base-url-hints";
import { bodyLimit, SMALL_JSON_BODY_BYTES } from "../http/bounded-body";
import { badRequest, httpError } from "../http/errors";
import { requestContextPlugin } from "../http/request-context";
import { SESSION_COOKIE, sessionFromCookie, bearerKeyAuth, requireAdmin, requireKeyManager } from "./auth";
import {
  apiKeyList,
  apiKeyView as apiKeyResponse,
  createdApiKey,
  createKeyBody,
  credentialsBody,
  keyIdParams,
  loggedOut,
  sessionView,
  signUpBody,
  signUpView,
  updateKeyBody,
  workspaceSettingsChanged,
  workspaceSettingsPatch,
  workspaceSettingsView as workspaceSettingsResponse,
} from "./model";
import { AccountError, createApiKey, findWorkspace, listApiKeys, logIn, logOut, mergeLimits, revokeApiKey, signUp, updateApiKey, type SessionInfo } from "./service";
import { LoginThrottle } from "./login-throttle";
import { constantTimeEqual } from "./secrets";
import { apiKeyView, workspaceSettingsView, workspaceView } from "./views";
import { BEARER_KEY_SECURITY, SESSION_SECURITY } from "../docs/security";
import { AUTH_ERRORS, errors, json } from "../docs/responses";

function sessionCookie(session: SessionInfo): string {
  const maxAge = Math.max(0, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
  return `${SESSION_COOKIE}=${session.token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}`;
}

const clearedCookie = `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`;

function accountFailure(error: unknown): never {
  if (error instanceof AccountError) throw httpError(error.status, error.code, error.message);
  throw error;
}

/**
 * A browser always sends Origin on a cross-site POST: the cookie-setting routes accept only
 * their own origin (login CSRF, forced sign-up). Clients that are not browsers send no Origin.
 */
function assertSameOrigin(request: Request): void {
  const origin = request.headers.get("origin");
  const crossSite = request.headers.get("sec-fetch-site") === "cross-site";
  if (origin === null && !crossSite) return;
  let originHost: string | undefined;
  try {
    originHost = origin ? new URL(origin).host : undefined;
  } catch {
    originHost = undefined;
  }
  if (crossSite || originHost === undefined || originHost !== request.headers.get("host")) {
    throw httpError(403, "forbidden_origin", `Origin ${origin ?? "(cross-site)"} may not log in or sign up here`);
  }
}

/** Free sign-up, login, logout and "who am I" for the dashboard (JSON only, cookie sessions). */
export const authController = (ctx: AppContext) => {
  const throttle = new LoginThrottle(ctx.config.loginMaxFailures);
  return new Elysia({ prefix: "/api/auth", detail: { tags: ["auth"] } })
    .use(requestContextPlugin)
    .use(bodyLimit)
    .post(
      "/signup",
      async ({ body, set }) => {
        const { user, workspace, session, claimed } = await signUp(
          ctx.database,
          { email: body.email, password: body.password, workspaceName: body.workspace_name },
          ctx.sessionTtlMs,
          ctx.config.signup,
        ).catch(accountFailure);
        set.status = 201;
        set.headers["set-cookie"] = sessionCookie(session);
        return {
          user: { id: user.id, email: user.email },
          workspace: workspaceView(workspace),
          /** True when this first account joined the server's only workspace (made with `sieve keys create`). */
          claimed_existing_workspace: claimed,
          csrf_token: session.csrfToken,
          expires_at: session.expiresAt.toISOString(),
        };
      },
      { body: signUpBody, maxBodyBytes: SMALL_JSON_BODY_BYTES, beforeHandle: ({ request }) => assertSameOrigin(request), detail: {
          summary: "Sign up",
          security: [],
          description:
            "Creates an account and its workspace and starts a session (an HTTP-only cookie). The first account on a server with one key-only workspace (made with `sieve keys create`) joins it. " +
            "--signup open | first-only | closed decides who may. Same-origin requests only (the dashboard).",
          responses: {
            201: json("The account's session", signUpView),
            ...errors("sieve", [400, 403, 409, 413, 415], { 403: "Sign-up is closed on this server (code signup_closed), or a cross-site request (code forbidden_origin)", 409: "An account with this email exists (code email_taken)" }),
          },
        },
      },
    )
    .post(
      "/login",
      async ({ body, set, clientAddress }) => {
        const email = body.email.toLowerCase();
        const wait = throttle.retryAfter(email, clientAddress);
        if (wait > 0) throw httpError(429, "too_many_attempts", `too many failed logins; retry in ${wait} s`, { "retry-after": String(wait) });
        const { user, session } = await logIn(ctx.database.db, body, ctx.sessionTtlMs).catch((error) => {
          if (error instanceof AccountError && error.status === 401) throttle.failed(email, clientAddress);
          return accountFailure(error);
        });
        throttle.succeeded(email);
        const workspace = (await findWorkspace(ctx.database, user.workspaceId))!;
        set.headers["set-cookie"] = sessionCookie(session);
        return { user: { id: user.id, email: user.email }, workspace: workspaceView(workspace), csrf_token: session.csrfToken, expires_at: session.expiresAt.toISOString() };
      },
      { body: credentialsBody, maxBodyBytes: SMALL_JSON_BODY_BYTES, beforeHandle: ({ request }) => assertSameOrigin(request), detail: {
          summary: "Log in",
          security: [],
          description: "Checks email and password and starts a session (an HTTP-only cookie). Same-origin requests only (the dashboard).",
          responses: {
            200: json("The session", sessionView),
            ...errors("sieve", [400, 401, 403, 413, 415, 429], {
              401: "Email or password is wrong (code invalid_credentials)",
              403: "A cross-site request (code forbidden_origin)",
              429: "Too many failed logins (code too_many_attempts); Retry-After says when to retry",
            }),
          },
        },
      },
    )
    .post(
      "/logout",
      async ({ headers, set }) => {
        const found = await sessionFromCookie(ctx, headers.cookie);
        if (found && !constantTimeEqual(headers["x-csrf-token"] ?? "", found.session.csrfToken)) {
          throw httpError(403, "csrf_failed", "missing or wrong X-CSRF-Token for this session");
        }
        if (found) await logOut(ctx.database.db, found.token);
        set.headers["set-cookie"] = clearedCookie;
        return { status: "logged_out" };
      },
      { maxBodyBytes: SMALL_JSON_BODY_BYTES, detail: {
          summary: "Log out",
          description: "Ends the session and clears its cookie; needs the session's X-CSRF-Token.",
          security: SESSION_SECURITY,
          responses: { 200: json("Logged out", loggedOut), ...errors("sieve", [403], { 403: "Missing or wrong X-CSRF-Token (code csrf_failed)" }) },
        },
      },
    )
    .get(
      "/me",
      async ({ headers }) => {
        const found = await sessionFromCookie(ctx, headers.cookie);
        if (!found) throw httpError(401, "unauthorized", "not logged in or the session expired");
        const { user, csrfToken, expiresAt } = found.session;
        const workspace = (await findWorkspace(ctx.database, user.workspaceId))!;
        return { user: { id: user.id, email: user.email }, workspace: workspaceView(workspace), csrf_token: csrfToken, expires_at: expiresAt.toISOString() };
      },
      {
        detail: {
          summary: "Current session",
          description: "The logged-in user, their workspace and the CSRF token changes must send.",
          security: SESSION_SECURITY,
          responses: { 200: json("The session", sessionView), ...errors("sieve", [401], { 401: "Not logged in, or the session expired (code unauthorized)" }) },
        },
      },
    );
};

/** Settings → API Keys. Session (with X-CSRF-Token on changes) or an admin key (Authorization: Bearer <API_KEY>). */
export const keysController = (ctx: AppContext) =>
  new Elysia({ prefix: "/api/keys", detail: { tags: ["api keys"], security: BEARER_KEY_SECURITY } })
    .use(bodyLimit)
    .use(bearerKeyAuth(ctx))
    .onBeforeHandle(({ scope }) => requireKeyManager(scope))
    .get("/", async ({ scope }) => ({ keys: (await listApiKeys(scope)).map(apiKeyView) }), {
      detail: {
        summary: "List API keys",
        description: "The workspace's keys, revoked ones included; never the secret. Needs a session or an admin key.",
        responses: { 200: json("Keys", apiKeyList), ...errors("sieve", AUTH_ERRORS) },
      },
    })
    .post(
      "/",
      async ({ scope, body, set }) => {
        const { key, record } = await createApiKey(scope, body.name, body.role, body.limits ?? null);
        set.status = 201;
        return { ...apiKeyView(record), api_key: key, workspace_id: scope.workspaceId };
      },
      { body: createKeyBody, maxBodyBytes: SMALL_JSON_BODY_BYTES, detail: {
          summary: "Create an API key",
          description: "Creates a key (role service or admin, optionally with its own limits). The full key is in this response only.",
          responses: { 201: json("The key, with its secret", createdApiKey), ...errors("sieve", [400, ...AUTH_ERRORS, 413, 415]) },
        },
      },
    )
    .patch(
      "/:id",
      async ({ scope, params, body }) => {
        const updated = await updateApiKey(scope, params.id, body);
        if (!updated) throw httpError(404, "not_found", "API key not found");
        return apiKeyView(updated);
      },
      { params: keyIdParams, body: updateKeyBody, maxBodyBytes: SMALL_JSON_BODY_BYTES, detail: {
          summary: "Change an API key",
          description: "Renames a key or changes its limits (a number sets one, null removes it, an omitted field stays).",
          responses: { 200: json("The key after the change", apiKeyResponse), ...errors("sieve", [400, ...AUTH_ERRORS, 404, 413, 415]) },
        },
      },
    )
    .delete(
      "/:id",
      async ({ scope, params }) => {
        const revoked = await revokeApiKey(scope, params.id);
        if (!revoked) throw httpError(404, "not_found", "API key not found");
        return apiKeyView(revoked);
      },
      {
        params: keyIdParams,
        detail: {
          summary: "Revoke an API key",
          description: "Revokes a key; it stops working on the next request. The record stays (revoked_at set).",
          responses: { 200: json("The revoked key", apiKeyResponse), ...errors("sieve", [400, ...AUTH_ERRORS, 404]) },
        },
      },
    );

/** The caller's workspace and its general settings (Bearer key or dashboard session). */
export const workspaceController = (ctx: AppContext) => {
  return new Elysia({ prefix: "/api/workspace", detail: { tags: ["workspace"], security: BEARER_KEY_SECURITY } })
    .use(bodyLimit)
    .use(bearerKeyAuth(ctx))
    .get("/", async ({ scope }) => workspaceSettingsView(await scope.workspace(), ctx.config), {
      detail: {
        summary: "Get workspace settings",
        description: "The workspace: id, name, body logging, system-prompt scanning, provider URLs (OpenAI-compatible and Anthropic), data protection policy and limits.",
        responses: { 200: json("The workspace", workspaceSettingsResponse), ...errors("sieve", [401, 403, 429]) },
      },
    })
    .patch(
      "/",
      async ({ scope, body }) => {
        for (const field of ["upstream_url", "anthropic_upstream_url"] as const) {
          // Where the workspace's traffic and provider keys go is an admin's decision, not any service key's.
          if (body[field] !== undefined) requireAdmin(scope, `changing ${field}`);
          const problem = body[field] ? upstreamUrlProblem(body[field], ctx.allowedUpstreamHosts) : undefined;
          if (problem) throw badRequest(`body.${field}: ${problem}`);
        }
        // What may leave for the provider is an admin's decision too; the policy is checked (custom patterns compiled and probed) before anything is written.
        if (body.data_protection !== undefined) requireAdmin(scope, "changing data_protection");
        const dataProtection = body.data_protection ? mergePolicy((await scope.workspace()).dataProtection, body.data_protection) : undefined;
        // Budgets are an admin's decision too: a service key must not lift its own workspace's.
        if (body.limits !== undefined) requireAdmin(scope, "changing limits");
        const limits = body.limits === undefined ? undefined : mergeLimits((await scope.workspace()).limits, body.limits);
        const view = workspaceSettingsView(
          await scope.updateWorkspace({
            dataProtection,
            limits,
            name: body.name,
            logBodies: body.log_bodies,
            firewallScanSystem: body.firewall_scan_system,
            upstreamUrl: body.upstream_url,
            anthropicUpstreamUrl: body.anthropic_upstream_url,
          }),
          ctx.config,
        );
        // Accepted (a provider may use any path), but said: a bare host for OpenAI or …/v1 for Anthropic is a 404 on every call.
        const warnings = (
          [
            ["upstream_url", "openai", body.upstream_url],
            ["anthropic_upstream_url", "anthropic", body.anthropic_upstream_url],
          ] as const
        ).flatMap(([field, provider, url]) => {
          const warning = url ? baseUrlWarning(provider, url) : undefined;
          return warning ? [`${field}: ${warning}`] : [];
        });
        return warnings.length ? { ...view, warnings } : view;
      },
      {
        body: workspaceSettingsPatch,
        maxBodyBytes: SMALL_JSON_BODY_BYTES,
        detail: {
          summary: "Change workspace settings",
          description:
            "Unknown fields are refused (400) and nothing changes. Provider URLs, data protection and limits need a session or an admin key. upstream_url, anthropic_upstream_url: http(s), no credentials, query or fragment; public addresses only unless the operator allows more (--allow-upstream-hosts).",
          responses: { 200: json("The workspace after the change; warnings when a provider URL looks wrong", workspaceSettingsChanged), ...errors("sieve", [400, 401, 403, 413, 415, 429]) },
        },
      },
    );
};
