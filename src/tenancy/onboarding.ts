import { count } from "drizzle-orm";
import type { Config } from "../config";
import type { Db } from "../db/connection";
import { apiKeys } from "./schema";
import { WorkspaceScope } from "./scope";
import { createApiKey, createWorkspace } from "./service";

/** What an operator needs to read on a first start: how to get a key (never a key itself). */
export function onboardingHint(db: Db, config: Config): string[] {
  const keys = db.select({ n: count() }).from(apiKeys).get()!.n;
  if (keys > 0) return [];
  return [
    `no API key yet: create one with \`sieve keys create --data-dir ${config.dataDir}\` ` +
      "(prints the workspace id and the key), or sign up in the dashboard",
  ];
}

/** --bootstrap-key: on a data dir without keys, a first workspace and key the operator asked to see. */
export function bootstrapFirstKey(db: Db, sqlite: import("bun:sqlite").Database): { workspaceId: string; apiKey: string } | undefined {
  const keys = db.select({ n: count() }).from(apiKeys).get()!.n;
  if (keys > 0) return undefined;
  const workspace = createWorkspace(db, "default");
  const { key } = createApiKey(new WorkspaceScope(db, sqlite, workspace.id), "bootstrap", "admin");
  return { workspaceId: workspace.id, apiKey: key };
}
