import { Elysia } from "elysia";
import { docsController } from "./docs";
import { evidenceController } from "./evidence";
import { embeddingsController } from "./embeddings/controller";
import { healthController } from "./health";
import { httpBasics } from "./http/basics";
import { proxyController } from "./proxy";
import { cacheOff, firewallOff } from "./proxy/stages";
import type { AppContext } from "./runtime/context";
import { authController, keysController } from "./tenancy";

/** Mounts every feature on one Elysia app. */
export function createApp(ctx: AppContext, docsUiScript: string) {
  return new Elysia()
    .use(httpBasics(ctx.log))
    .use(docsController(docsUiScript))
    .use(healthController(ctx))
    .use(authController(ctx))
    .use(keysController(ctx))
    .use(embeddingsController(ctx))
    .use(proxyController(ctx, { firewall: firewallOff, cache: cacheOff }))
    .use(evidenceController(ctx));
}

export type App = ReturnType<typeof createApp>;
