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
        // The firewall's encoder is a second model (src/firewall/encoder.ts): the proxy needs both.
        const checks = { database: true, embedder: ctx.embedder.ready, firewall_encoder: ctx.firewallEncoder.ready };
        const error = ctx.embedder.error ?? ctx.firewallEncoder.error;
        if (error) return jsonResponse(503, { status: "failed", checks, detail: error.message });
        if (!checks.embedder || !checks.firewall_encoder) return jsonResponse(503, { status: "starting", checks });
        const { backend, threads } = ctx.embedder.require().runtime;
        return { status: "ready", checks, inference: { backend, threads } };
      },
      { detail: { summary: "200 once the database is migrated and both models (general, firewall) are loaded; 503 before", tags: ["health"] } },
    );
