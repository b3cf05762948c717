import { Elysia } from "elysia";
import type { AppContext } from "../runtime/context";
import { jsonResponse } from "../http/errors";

/** Liveness and readiness for process supervisors and the CI smoke test. */
export const healthController = (ctx: AppContext) =>
  new Elysia({ tags: ["health"] } as never)
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "Process is up", tags: ["health"] } })
    .get(
      "/readyz",
      () => {
        const checks = { database: true, embedder: ctx.embedder.ready };
        if (ctx.embedder.error) return jsonResponse(503, { status: "failed", checks, detail: ctx.embedder.error.message });
        if (!checks.embedder) return jsonResponse(503, { status: "starting", checks });
        const { backend, threads } = ctx.embedder.require().runtime;
        return { status: "ready", checks, inference: { backend, threads } };
      },
      { detail: { summary: "200 once the database is migrated and the model loaded; 503 before", tags: ["health"] } },
    );
