import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import { z } from "zod";
import { VERSION } from "../version";

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
        mapJsonSchema: { zod: z.toJSONSchema },
        exclude: { paths: [DOCS_SCRIPT_PATH] },
        scalar: { cdn: DOCS_SCRIPT_PATH, withDefaultFonts: false } as never,
        documentation: {
          info: {
            title: "Sieve",
            version: VERSION,
            description:
              "Self-hosted LLM sidecar: an OpenAI-compatible chat-completions proxy with a semantic firewall and cache, and a versioned, deduplicating document API.",
          },
          components: {
            securitySchemes: {
              serviceKey: { type: "apiKey", in: "header", name: "X-Service-Api-Key" },
              serviceWorkspace: { type: "apiKey", in: "header", name: "X-Service-Workspace-Id" },
              bearerKey: { type: "http", scheme: "bearer" },
            },
          },
        },
      }),
    );
