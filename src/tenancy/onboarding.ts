import { count } from "drizzle-orm";
import type { Config } from "../config";
import { firstRow, type Db, type Storage } from "../db/connection";
import { apiKeys, users, workspaces } from "./schema";
import { WorkspaceScope } from "./scope";
import { createApiKey, createWorkspace } from "./service";

/** What an operator needs to read on a first start: how to get a key (never a key itself). */
async function keyCount(db: Db): Promise<number> {
  return Number((await firstRow(db.select({ n: count() }).from(apiKeys)))!.n);
}

export async function onboardingHint(db: Db, config: Config): Promise<string[]> {
  const keys = await keyCount(db);
  if (keys === 0) {
    return [
      `no API key yet: create one with \`sieve keys create --data-dir ${config.dataDir}\` ` +
        "(prints the workspace id and the key), or sign up in the dashboard",
    ];
  }
  const accounts = Number((await firstRow(db.select({ n: count() }).from(users)))!.n);
  const lone = accounts === 0 && Number((await firstRow(db.select({ n: count() }).from(workspaces)))!.n) === 1;
  if (!lone || config.signup === "closed") return [];
  // The first sign-up joins the one workspace: say so, since whoever reaches the dashboard first gets it.
  return [`no dashboard account yet: the first account signed up at /dashboard joins the workspace of your API key${config.signup === "open" ? "; --signup first-only closes sign-up after it" : ""}`];
}

/** --bootstrap-key: on a data dir without keys, a first workspace and key the operator asked to see. */
export async function bootstrapFirstKey(storage: Storage): Promise<{ workspaceId: string; apiKey: string } | undefined> {
  if ((await keyCount(storage.db)) > 0) return undefined;
  const workspace = await createWorkspace(storage.db, "default");
  const { key } = await createApiKey(new WorkspaceScope(storage, workspace.id), "bootstrap", "admin");
  return { workspaceId: workspace.id, apiKey: key };
}
