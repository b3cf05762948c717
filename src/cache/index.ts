import { Elysia } from "elysia";
import { bodyLimit, SMALL_JSON_BODY_BYTES } from "../http/bounded-body";
import { httpError } from "../http/errors";
import type { AppContext } from "../runtime/context";
import { serviceKeyAuth } from "../tenancy/auth";
import { cacheOff, type CacheStage } from "../proxy/stages";
import { findWorkspace } from "../tenancy/service";
import { cacheEntriesQuery, cacheEntryDeleted, cacheEntryList, cacheEntryWithAnswer, cacheKeyParams, cachePurged, cacheSettingsPatch, cacheSettingsResponse, cacheStatsView } from "./model";
import { cacheSettingsView, cacheStats, deleteEntry, getEntry, listEntries, purgeEntries, updateCacheSettings } from "./service";

import { ResponseCache } from "./stage";
import { SERVICE_KEY_SECURITY } from "../docs/security";
import { AUTH_ERRORS, errors, json } from "../docs/responses";

/** The proxy's cache stage: the response cache, or nothing with --cache false. */
export const cacheStage = (ctx: AppContext): CacheStage => (ctx.config.cache ? new ResponseCache(ctx) : cacheOff);

/** The response cache of the caller's workspace: statistics, purge, settings (proxy credentials, spec §5). */
export const cacheController = (ctx: AppContext) =>
  new Elysia({ prefix: "/v1/cache", detail: { tags: ["cache"], security: SERVICE_KEY_SECURITY } })
    .use(bodyLimit)
    .use(serviceKeyAuth(ctx))
    .get("/stats", async ({ scope }) => (await ctx.cacheCounters.flush(), cacheStats(scope, Date.now())), {
      detail: {
        summary: "Cache statistics",
        description: "Live entries and bytes, hits (exact and semantic), misses, hit rate and the provider time saved.",
        responses: { 200: json("Statistics", cacheStatsView), ...errors("sieve", AUTH_ERRORS) },
      },
    })
    .get("/entries", async ({ scope, query }) => (await ctx.cacheCounters.flush(), listEntries(scope, query, Date.now())), {
      query: cacheEntriesQuery,
      detail: {
        summary: "List cache entries",
        description: "The workspace's live entries, most recently used first (prompt shortened to 300 characters), paged by limit (default 50, 1–500) and offset.",
        responses: { 200: json("A page of entries", cacheEntryList), ...errors("sieve", [400, ...AUTH_ERRORS]) },
      },
    })
    .get(
      "/entries/:key",
      async ({ scope, params }) => {
        await ctx.cacheCounters.flush();
        const entry = await getEntry(scope, params.key, Date.now());
        if (!entry) throw httpError(404, "not_found", "no live cache entry with this key in this workspace");
        return entry;
      },
      {
        params: cacheKeyParams,
        detail: {
          summary: "Get a cache entry",
          description: "One entry: its whole prompt and the stored answer. The key is a hit's X-Service-Cache-Key, or evidence cache_hit.key.",
          responses: { 200: json("The entry", cacheEntryWithAnswer), ...errors("sieve", [400, ...AUTH_ERRORS, 404], { 400: "The key is not 64 lower-case hex characters" }) },
        },
      },
    )
    .delete(
      "/",
      async ({ scope }) => ({ deleted: await purgeEntries(scope) }),
      {
        detail: {
          summary: "Purge the cache",
          description: "Deletes every entry of the workspace; the counters (GET /v1/cache/stats) stay.",
          responses: { 200: json("How many entries were deleted", cachePurged), ...errors("sieve", AUTH_ERRORS) },
        },
      },
    )
    .get("/settings", async ({ scope }) => cacheSettingsView((await findWorkspace(ctx.database, scope.workspaceId))!), {
      detail: {
        summary: "Get cache settings",
        description: "The workspace's cache settings; threshold null means the built-in default (effective_threshold).",
        responses: { 200: json("Settings", cacheSettingsResponse), ...errors("sieve", AUTH_ERRORS) },
      },
    })
    // Pending hits written first: a lower max_entries evicts by last use.
    .patch("/settings", async ({ scope, body }) => (await ctx.cacheCounters.flush(), cacheSettingsView(await updateCacheSettings(scope, body))), {
      body: cacheSettingsPatch,
      maxBodyBytes: SMALL_JSON_BODY_BYTES,
      detail: {
        summary: "Change cache settings",
        description: "Changes enabled, semantic, threshold (0.5–1, or null for the default), ttl_seconds (the default TTL) or max_entries (the LRU bound; a lower one evicts at once).",
        responses: { 200: json("Settings after the change", cacheSettingsResponse), ...errors("sieve", [400, ...AUTH_ERRORS, 413, 415]) },
      },
    })
    .delete(
      "/:key",
      async ({ scope, params }) => {
        if (!(await deleteEntry(scope, params.key))) throw httpError(404, "not_found", "no cache entry with this key in this workspace");
        return { deleted: 1, key: params.key };
      },
      {
        params: cacheKeyParams,
        detail: {
          summary: "Delete a cache entry",
          description: "Deletes one entry by the key a hit reported in X-Service-Cache-Key.",
          responses: { 200: json("Deleted", cacheEntryDeleted), ...errors("sieve", [400, ...AUTH_ERRORS, 404]) },
        },
      },
    );
