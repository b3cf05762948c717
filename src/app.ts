import { Elysia } from "elysia";
import { cacheController, cacheStage } from "./cache";
import { dashboardController } from "./dashboard";
import { docsController } from "./docs";
import { documentsController } from "./documents";
import { evidenceController } from "./evidence";
import { dataProtectionController } from "./data-protection";
import { firewallController, firewallStage } from "./firewall";
import { embeddingsController } from "./embeddings/controller";
import { healthController } from "./health";
import { httpBasics } from "./http/basics";
import { metricsController } from "./metrics";
import { proxyController, versionlessPathsController } from "./proxy";
import { errorShapeFor } from "./proxy/passthrough";
import { routingController } from "./routing";
import type { AppContext } from "./runtime/context";
import { authController, keysController, workspaceController } from "./tenancy";
import { usageController } from "./usage";

/** Mounts every feature on one Elysia app. */
export function createApp(ctx: AppContext, docsUiScript: string) {
  // standardHostname false: Elysia otherwise finds the path by skipping 11 characters of the URL
  // ("http://" + a 4-letter host), so every route was a 404 for a Host of 3 characters or fewer.
  return new Elysia({ handler: { standardHostname: false } })
    .use(httpBasics(ctx.log, { maxJsonDepth: ctx.config.maxJsonDepth }, errorShapeFor))
    .use(metricsController(ctx))
    .use(docsController(docsUiScript))
    .use(dashboardController())
    .use(healthController(ctx))
    .use(authController(ctx))
    .use(keysController(ctx))
    .use(workspaceController(ctx))
    .use(routingController(ctx))
    .use(embeddingsController(ctx))
    .use(proxyController(ctx, { firewall: firewallStage(ctx), cache: cacheStage(ctx) }))
    .use(versionlessPathsController())
    .use(cacheController(ctx))
    .use(firewallController(ctx))
    .use(dataProtectionController(ctx))
    .use(evidenceController(ctx))
    .use(documentsController(ctx))
    .use(usageController(ctx));
}

export type App = ReturnType<typeof createApp>;
