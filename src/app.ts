import { Elysia } from "elysia";
import { cacheController, cacheStage } from "./cache";
import { dashboardController } from "./dashboard";
import { docsController } from "./docs";
import { documentsController } from "./documents";
import { evidenceController } from "./evidence";
import { firewallController, firewallStage } from "./firewall";
import { embeddingsController } from "./embeddings/controller";
import { healthController } from "./health";
import { httpBasics } from "./http/basics";
import { proxyController } from "./proxy";
import type { AppContext } from "./runtime/context";
import { authController, keysController, workspaceController } from "./tenancy";

/** Mounts every feature on one Elysia app. */
export function createApp(ctx: AppContext, docsUiScript: string) {
  return new Elysia()
    .use(httpBasics(ctx.log))
    .use(docsController(docsUiScript))
    .use(dashboardController())
    .use(healthController(ctx))
    .use(authController(ctx))
    .use(keysController(ctx))
    .use(workspaceController(ctx))
    .use(embeddingsController(ctx))
    .use(proxyController(ctx, { firewall: firewallStage(ctx), cache: cacheStage(ctx) }))
    .use(cacheController(ctx))
    .use(firewallController(ctx))
    .use(evidenceController(ctx))
    .use(documentsController(ctx));
}

export type App = ReturnType<typeof createApp>;
