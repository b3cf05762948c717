import { Elysia } from "elysia";
import { z } from "zod";
import { bodyLimit } from "../http/bounded-body";
import { badRequest, httpError } from "../http/errors";
import type { AppContext } from "../runtime/context";
import { bearerKeyAuth, requireAdmin } from "../tenancy/auth";
import type { Workspace } from "../tenancy/service";
import { REFERENCES, secretBody, secretNameParams, workspaceRoutingView } from "./model";
import { secretContext } from "./secret-box";
import { RoutingDocumentError } from "./workspace-routes";
import { BEARER_KEY_SECURITY } from "../docs/security";
import { AUTH_ERRORS, errors, json } from "../docs/responses";

/** A routing document as large as the routing file may be (1 MiB), and a secret of 16,384 characters escaped in JSON (up to 6 bytes each). */
const ROUTING_BODY_BYTES = 1024 * 1024;
const SECRET_BODY_BYTES = 128 * 1024;


/** The secret names a routing document refers to (api_key and header values). */
function referencedSecrets(routing: Workspace["routing"]): Set<string> {
  const names = new Set<string>();
  for (const target of routing?.targets ?? []) {
    for (const value of [target.api_key, ...Object.values(target.headers ?? {})]) {
      const reference = value === undefined ? null : REFERENCES.secret.pattern.exec(value);
      if (reference) names.add(reference[1]!);
    }
  }
  return names;
}

/**
 * A workspace's own routes (the routing file's shape, with `secret:NAME` references) and the
 * secrets they use. Secret values are sealed on arrival and never returned; the view lists names.
 */
export const routingController = (ctx: AppContext) => {
  const { workspaceRoutes, tenantBreakers, secretKeys } = ctx.routing;
  const view = (workspace: Workspace) => ({
    routing: workspace.routing,
    secrets: Object.keys(workspace.routingSecrets ?? {}).sort(),
    /** This instance's view of each target's health (breakers are per instance). */
    targets: (workspace.routing?.targets ?? []).map((target) => {
      const breaker = tenantBreakers.peek(`${workspace.id}/${target.name}`);
      return { name: target.name, kind: target.kind, breaker: breaker?.state ?? "closed", retry_in_ms: breaker?.retryInMs ?? 0 };
    }),
    server_routes: ctx.routing.file !== undefined,
  });

  return new Elysia({ prefix: "/api/routing", detail: { tags: ["routing"], security: BEARER_KEY_SECURITY } })
    .use(bodyLimit)
    .use(bearerKeyAuth(ctx))
    // Routes send the workspace's traffic (and its provider keys) somewhere.
    .onBeforeHandle(({ scope }) => requireAdmin(scope, "changing the workspace's routes and secrets"))
    .get("/", async ({ scope }) => view(await scope.workspace()), {
      detail: {
        summary: "Get routes",
        description: "The workspace's own routes, its secrets' names (never values) and its targets' health on this instance. Needs a session or an admin key.",
        responses: { 200: json("Routes", workspaceRoutingView), ...errors("sieve", AUTH_ERRORS) },
      },
    })
    .put(
      "/",
      async ({ scope, body }) => {
        const workspace = await scope.workspace();
        let routing;
        try {
          routing = workspaceRoutes.validate(body, workspace.routingSecrets, workspace.id);
        } catch (error) {
          if (error instanceof RoutingDocumentError) throw badRequest(error.problems.join("; "));
          throw error;
        }
        return view(await scope.updateWorkspace({ routing }));
      },
      {
        body: z.record(z.string(), z.unknown()),
        maxBodyBytes: ROUTING_BODY_BYTES,
        detail: {
          summary: "Replace routes",
          description: "Replaces the workspace's routes (README: Routing and resilience); they apply before the operator's routes. Same shape as the routing file; api_key and header values name stored secrets as secret:NAME. Targets follow the upstream_url rules (public addresses unless --allow-upstream-hosts).",
          responses: { 200: json("Routes after the change", workspaceRoutingView), ...errors("sieve", [400, ...AUTH_ERRORS, 413, 415], { 400: "The routing document's problems, each named" }) },
        },
      },
    )
    .delete("/", async ({ scope }) => view(await scope.updateWorkspace({ routing: null })), {
      detail: {
        summary: "Remove routes",
        description: "Removes the workspace's routes; its secrets stay.",
        responses: { 200: json("Routes after the change", workspaceRoutingView), ...errors("sieve", AUTH_ERRORS) },
      },
    })
    .put(
      "/secrets/:name",
      async ({ scope, params, body }) => {
        const unavailable = secretKeys.unavailable;
        if (unavailable) throw httpError(409, "secret_key_missing", unavailable);
        const box = secretKeys.box(true)!;
        const updated = await scope.transaction(async (tx) => {
          const secrets = (await tx.workspace()).routingSecrets ?? {};
          return tx.updateWorkspace({ routingSecrets: { ...secrets, [params.name]: box.seal(body.value, secretContext(scope.workspaceId, params.name)) } });
        });
        return view(updated);
      },
      { params: secretNameParams, body: secretBody, maxBodyBytes: SECRET_BODY_BYTES, detail: {
          summary: "Store a secret",
          description: "Stores a secret for secret:NAME references, sealed at rest (AES-256-GCM); the value is never returned.",
          responses: {
            200: json("Routes and secret names after the change", workspaceRoutingView),
            ...errors("sieve", [400, ...AUTH_ERRORS, 409, 413, 415], { 409: "The server has no key to seal secrets with (code secret_key_missing)" }),
          },
        },
      },
    )
    .delete(
      "/secrets/:name",
      async ({ scope, params }) => {
        const updated = await scope.transaction(async (tx) => {
          const workspace = await tx.workspace();
          if (!workspace.routingSecrets?.[params.name]) throw httpError(404, "not_found", `no secret named "${params.name}"`);
          if (referencedSecrets(workspace.routing).has(params.name)) throw httpError(409, "secret_in_use", `the routes use secret:${params.name}; change them first`);
          const { [params.name]: _removed, ...rest } = workspace.routingSecrets;
          return tx.updateWorkspace({ routingSecrets: rest });
        });
        return view(updated);
      },
      {
        params: secretNameParams,
        detail: {
          summary: "Delete a secret",
          description: "Deletes a secret the routes no longer use.",
          responses: { 200: json("Routes and secret names after the change", workspaceRoutingView), ...errors("sieve", [400, ...AUTH_ERRORS, 404, 409], { 409: "The routes still use it (code secret_in_use)" }) },
        },
      },
    );
};
