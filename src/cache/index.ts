import { Elysia } from "elysia";
import { bodyLimit, SMALL_JSON_BODY_BYTES } from "../http/bounded-body";
import { httpError } from "../http/errors";
import type { AppContext } from "../runtime/context";
import { serviceKeyAuth } from "../tenancy/auth";
import { cacheOff, type CacheStage } from "../proxy/stages";
import { findWorkspace } from "../tenancy/service";
import { cacheEntriesQuery, cacheKeyParams, cacheSettingsPatch } from "./model";
import { cacheSettingsView, cacheStats, deleteEntry, getEntry, listEntries, purgeEntries, updateCacheSettings } from "./service";

import { ResponseCache } from "./stage";
import { SERVICE_KEY_SECURITY } from "../docs/security";

/** The proxy's cache stage: the response cache, or nothing with --cache false. */
export const cacheStage = (ctx: AppContext): CacheStage => (ctx.config.cache ? new ResponseCache(ctx) : cacheOff);

/** The response cache of the caller's workspace: statistics, purge, settings (proxy credentials, spec §5). */
export const cacheController = (ctx: AppContext) =>
  new Elysia({ prefix: "/v1/cache", detail: { tags: ["cache"], security: SERVICE_KEY_SECURITY } })
    .use(bodyLimit)
    .use(serviceKeyAuth(ctx))
    .get("/stats", async ({ scope }) => (await ctx.cacheCounters.flush(), cacheStats(scope, Date.now())), {
      detail: { summary: "Entries, bytes, hits (exact and semantic), misses, hit rate and provider time saved" },
    })
    .get("/entries", async ({ scope, query }) => (await ctx.cacheCounters.flush(), listEntries(scope, query, Date.now())), {
      query: cacheEntriesQuery,
      detail: { summary: "The workspace's live entries, most recently used first (prompt shortened to 300 characters)" },
    })
    .get(
      "/entries/:key",
      async ({ scope, params }) => {
        await ctx.cacheCounters.flush();
        const entry = await getEntry(scope, params.key, Date.now());
        if (!entry) throw httpError(404, "not_found", "no live cache entry with this key in this workspace");
        return entry;
      },
      { params: cacheKeyParams, detail: { summary: "One entry: its whole prompt and the stored answer (the key is X-Service-Cache-Key, or evidence cache_hit.key)" } },
    )
    .delete(
      "/",
      async ({ scope }) => ({ deleted: await purgeEntries(scope) }),
      { detail: { summary: "Purge every entry of the workspace (the counters stay)" } },
    )
    .get("/settings", async ({ scope }) => cacheSettingsView((await findWorkspace(ctx.database, scope.workspaceId))!), {
      detail: { summary: "The workspace's cache settings; threshold null means the built-in default (effective_threshold)" },
    })
    // Pending hits written first: a lower max_entries evicts by last use.
    .patch("/settings", async ({ scope, body }) => (await ctx.cacheCounters.flush(), cacheSettingsView(await updateCacheSettings(scope, body))), {
      body: cacheSettingsPatch,
      maxBodyBytes: SMALL_JSON_BODY_BYTES,
      detail: { summary: "Change enabled, semantic, threshold (0.5–1 or null), ttl_seconds (default TTL) or max_entries (LRU bound)" },
    })
    .delete(
      "/:key",
      async ({ scope, params }) => {
        if (!(await deleteEntry(scope, params.key))) throw httpError(404, "not_found", "no cache entry with this key in this workspace");
        return { deleted: 1, key: params.key };
      },
      { params: cacheKeyParams, detail: { summary: "Delete one entry by the key a hit reported in X-Service-Cache-Key" } },
    );
