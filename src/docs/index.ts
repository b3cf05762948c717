import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { z } from "zod";
import { VERSION } from "../version";
import { toJsonSchema } from "./responses";

export const DOCS_SCRIPT_PATH = "/openapi/assets/api-reference.js";

/**
 * OpenAPI document at /openapi/json and the Scalar reference page at /openapi. The page's
 * script is served from the binary (no CDN) and Scalar's web fonts are switched off.
 */
export const docsController = (docsUiScript: string) =>
  new Elysia()
    .get(DOCS_SCRIPT_PATH, () => new Response(Bun.file(docsUiScript), { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .use(
      openapi({
        path: "/openapi",
        specPath: "/openapi/json",
        // Documented as a client sends it: a field with a default is optional.
        mapJsonSchema: { zod: (schema: z.ZodType) => toJsonSchema(schema, "input") },
        exclude: { paths: [DOCS_SCRIPT_PATH] },
        // An offline tool: no AI chat, MCP or deploy buttons (they call Scalar's cloud).
        scalar: { cdn: DOCS_SCRIPT_PATH, withDefaultFonts: false, showDeveloperTools: "never", agent: { disabled: true }, mcp: { disabled: true }, hideClientButton: false } as never,
        documentation: {
          info: {
            title: "Sieve",
            version: VERSION,
            description:
              "Self-hosted LLM sidecar. A proxy for the OpenAI (chat completions, Responses) and Anthropic (Messages) APIs with a semantic firewall, " +
              "a semantic cache and an evidence log, routing and fallbacks across providers; and a document API that chunks, embeds, versions and deduplicates uploads. " +
              "Apps keep their official SDK: base URL `/v1` (OpenAI) or `/` (Anthropic), plus `X-Service-Api-Key` and `X-Service-Workspace-Id`; the provider key is forwarded untouched.",
          },
          servers: [{ url: "/", description: "This Sieve server" }],
          components: {
            securitySchemes: {
              serviceKey: { type: "apiKey", in: "header", name: "X-Service-Api-Key", description: "A Sieve API key (sieve_…)" },
              serviceWorkspace: { type: "apiKey", in: "header", name: "X-Service-Workspace-Id", description: "The key's workspace id" },
              bearerKey: { type: "http", scheme: "bearer", description: "A Sieve API key (sieve_…), as Authorization: Bearer" },
              sessionCookie: { type: "apiKey", in: "cookie", name: "sieve_session", description: "The dashboard's session; changes also need X-CSRF-Token" },
            },
          },
        },
      }),
    );
