import { Elysia } from "elysia";
import type { AppContext } from "../runtime/context";
import { jsonResponse } from "../http/errors";
import { z } from "zod";
import { json } from "../docs/responses";

const readinessChecks = z.object({ database: z.boolean(), embedder: z.boolean(), firewall_encoder: z.boolean() });

/** Liveness and readiness for process supervisors and the CI smoke test. */
export const healthController = (ctx: AppContext) =>
  new Elysia({ tags: ["health"] } as never)
    .get("/healthz", () => ({ status: "ok" }), {
      detail: { summary: "Liveness", description: "200 while the process is up; no dependency is checked.", tags: ["health"], security: [], responses: { 200: json("Up", z.object({ status: z.literal("ok") })) } },
    })
    .get(
      "/readyz",
      async () => {
        // The firewall's encoder is a second model (src/firewall/encoder.ts): the proxy needs both.
        const database = await databaseAnswers(ctx);
        const checks = { database, embedder: ctx.embedder.ready, firewall_encoder: ctx.firewallEncoder.ready };
        const error = ctx.embedder.error ?? ctx.firewallEncoder.error;
        if (error) return jsonResponse(503, { status: "failed", checks, detail: error.message });
        if (!database) return jsonResponse(503, { status: "database_unavailable", checks, detail: "the database does not answer; ready again as soon as it does" });
        if (!checks.embedder || !checks.firewall_encoder) return jsonResponse(503, { status: "starting", checks });
        const { backend, threads } = ctx.embedder.require().runtime;
        return { status: "ready", checks, inference: { backend, threads } };
      },
      {
        detail: {
          summary: "Readiness",
          description: "200 once the database is migrated and answers and both models (general, firewall) are loaded; 503 before that, after a model failed to load, and while the database is unreachable.",
          tags: ["health"],
          security: [],
          responses: {
            200: json("Ready", z.object({ status: z.literal("ready"), checks: readinessChecks, inference: z.object({ backend: z.string(), threads: z.int() }) })),
            503: json(
              "Not ready: starting, a model failed (detail says which), or the database does not answer",
              z.object({ status: z.enum(["starting", "failed", "database_unavailable"]), checks: readinessChecks, detail: z.string().optional() }),
            ),
          },
        },
      },
    );

/** A trivial query within a second (a dead PostgreSQL must not hang the probe). */
async function databaseAnswers(ctx: AppContext): Promise<boolean> {
  const timeout = Bun.sleep(1_000).then(() => false);
  return Promise.race([ctx.database.ping().then(() => true, () => false), timeout]);
}
