import { and, asc, count, eq, gt, isNull, sql } from "drizzle-orm";
import { firstRow, type Db, type Storage } from "../db/connection";
import { apiKeys, sessions, users, workspaces, type KeyRole } from "./schema";
import type { WorkspaceScope } from "./scope";
import type { Limits } from "../usage/model";
import { constantTimeEqual, generateApiKey, randomToken, sha256Hex, visiblePrefix } from "./secrets";

export type Workspace = typeof workspaces.$inferSelect;
export type ApiKeyRecord = Omit<typeof apiKeys.$inferSelect, "secretHash">;

/** last_used_at is refreshed at most this often, so key checks stay read-only on the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

export async function createWorkspace(db: Db, name: string): Promise<Workspace> {
  return (await firstRow(db.insert(workspaces).values({ id: crypto.randomUUID(), name }).returning()))!;
}

export function listWorkspaces(db: Db): Promise<Workspace[]> {
  return db.select().from(workspaces).orderBy(asc(workspaces.createdAt));
}

/**
 * Statements on every request's path (key check, workspace settings), prepared once per
 * database: building them per call was a third of the proxy's CPU time.
 */
function prepareHotStatements(db: Db) {
  return {
    workspaceById: db.select().from(workspaces).where(eq(workspaces.id, sql.placeholder("id"))).prepare(),
    activeKeyByHash: db
      .select({ id: apiKeys.id, workspaceId: apiKeys.workspaceId, role: apiKeys.role, secretHash: apiKeys.secretHash, lastUsedAt: apiKeys.lastUsedAt, limits: apiKeys.limits })
      .from(apiKeys)
      .where(and(eq(apiKeys.secretHash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
      .prepare(),
    touchKey: db
      .update(apiKeys)
      .set({ lastUsedAt: sql`${sql.placeholder("now")}` })
      .where(eq(apiKeys.id, sql.placeholder("id")))
      .prepare(),
  };
}

const preparedByDb = new WeakMap<Db, ReturnType<typeof prepareHotStatements>>();

function hotStatements(db: Db) {
  let statements = preparedByDb.get(db);
  if (!statements) preparedByDb.set(db, (statements = prepareHotStatements(db)));
  return statements;
}

/** Entries per map of the fleet-mode memo; beyond it the oldest go first. */
const MEMO_ENTRIES = 10_000;

/**
 * On a shared database (PostgreSQL) the hot path must not wait for a round trip per request: the
 * key owners and workspace rows this instance has read stay in memory until a change is announced
 * (src/db/change-feed.ts: within a second, or a few seconds after a missed notification). On
 * SQLite every check reads the file, as before: the CLI may change it from another process, and
 * a local read costs microseconds.
 */
class TenantMemo {
  readonly keys = new Map<string, Promise<KeyOwnerRow | undefined>>();
  readonly workspaces = new Map<string, Promise<Workspace | undefined>>();

  constructor(storage: Storage) {
    storage.onChange((topic, workspaceId) => {
      if (topic === null || topic === "keys") {
        for (const [hash, owner] of this.keys) void owner.then((row) => (!row || topic === null || row.workspaceId === workspaceId) && this.keys.delete(hash));
      }
      if (topic === null || topic === "workspace") {
        if (topic === null || workspaceId === null) this.workspaces.clear();
        else this.workspaces.delete(workspaceId);
      }
    });
  }

  remember<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const known = map.get(key);
    if (known) return known;
    const loading = load();
    map.set(key, loading);
    // Failures and unknown keys are not remembered: the next request asks again.
    loading.then((value) => value === undefined && map.get(key) === loading && map.delete(key), () => map.get(key) === loading && map.delete(key));
    if (map.size > MEMO_ENTRIES) map.delete(map.keys().next().value!);
    return loading;
  }
}

type KeyOwnerRow = { id: string; workspaceId: string; role: KeyRole; secretHash: string; lastUsedAt: Date | null; limits: Limits | null };

const memoByStorage = new WeakMap<Storage, TenantMemo>();

function memoOf(storage: Storage): TenantMemo | undefined {
  if (!storage.shared) return undefined;
  let memo = memoByStorage.get(storage);
  if (!memo) memoByStorage.set(storage, (memo = new TenantMemo(storage)));
  return memo;
}

export async function findWorkspace(storage: Storage, id: string): Promise<Workspace | undefined> {
  const load = async () => (await hotStatements(storage.db).workspaceById.execute({ id }))[0];
  const memo = memoOf(storage);
  return memo ? memo.remember(memo.workspaces, id, load) : load();
}

export function publicKey(record: typeof apiKeys.$inferSelect): ApiKeyRecord {
  const { secretHash: _hidden, ...rest } = record;
  return rest;
}

/** Creates a key; the clear key is returned this once and only its hash is stored. */
export async function createApiKey(scope: WorkspaceScope, name: string, role: KeyRole, limits: Limits | null = null): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  const row = { id: crypto.randomUUID(), name, role, visiblePrefix: visiblePrefix(key), secretHash: sha256Hex(key), limits: limits && mergeLimits(null, limits) };
  const [record] = (await scope.insert(apiKeys, row).returning()) as (typeof apiKeys.$inferSelect)[];
  return { key, record: publicKey(record!) };
}

export async function listApiKeys(scope: WorkspaceScope): Promise<ApiKeyRecord[]> {
  return (await scope.select(apiKeys).orderBy(asc(apiKeys.createdAt))).map(publicKey);
}

/**
 * A PATCH of limits over the stored ones: a number sets, null removes, an omitted field stays. A
 * removed field is stored as null, so it also overrides the server's default for it.
 */
export function mergeLimits(stored: Limits | null, patch: Limits): Limits {
  return { ...(stored ?? {}), ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) };
}

/** Renames a key or changes its limits; undefined when the id is not a key of this workspace. */
export async function updateApiKey(scope: WorkspaceScope, id: string, change: { name?: string; limits?: Limits }): Promise<ApiKeyRecord | undefined> {
  const existing = await scope.first(apiKeys, eq(apiKeys.id, id));
  if (!existing) return undefined;
  const set = { ...(change.name !== undefined ? { name: change.name } : {}), ...(change.limits !== undefined ? { limits: mergeLimits(existing.limits, change.limits) } : {}) };
  if (Object.keys(set).length === 0) return publicKey(existing);
  const [updated] = (await scope.update(apiKeys, set, eq(apiKeys.id, id)).returning()) as (typeof apiKeys.$inferSelect)[];
  // Instances that remember the key (PostgreSQL) read its new limits.
  await scope.announce("keys");
  return publicKey(updated!);
}

/** Returns the revoked key, or undefined when the id is not a key of this workspace. */
export async function revokeApiKey(scope: WorkspaceScope, id: string): Promise<ApiKeyRecord | undefined> {
  const existing = await scope.first(apiKeys, eq(apiKeys.id, id));
  if (!existing) return undefined;
  if (existing.revokedAt) return publicKey(existing);
  const [updated] = (await scope.update(apiKeys, { revokedAt: new Date() }, eq(apiKeys.id, id)).returning()) as (typeof apiKeys.$inferSelect)[];
  await scope.announce("keys");
  return publicKey(updated!);
}

export type KeyOwner = { keyId: string; workspaceId: string; role: KeyRole; limits: Limits | null };

/** Looks a presented key up by its hash; revoked keys resolve to nothing. */
export async function resolveApiKey(storage: Storage, presented: string): Promise<KeyOwner | undefined> {
  const hash = sha256Hex(presented);
  const statements = hotStatements(storage.db);
  const load = async (): Promise<KeyOwnerRow | undefined> => (await statements.activeKeyByHash.execute({ hash }))[0];
  const memo = memoOf(storage);
  const row = await (memo ? memo.remember(memo.keys, hash, load) : load());
  // The index lookup already matched; the constant-time compare keeps the final check timing-flat.
  if (!row || !constantTimeEqual(row.secretHash, hash)) return undefined;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    row.lastUsedAt = new Date(now);
    await statements.touchKey.execute({ id: row.id, now });
  }
  return { keyId: row.id, workspaceId: row.workspaceId, role: row.role, limits: row.limits };
}

// ---- dashboard accounts -------------------------------------------------------------------

export class AccountError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 409,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export type SessionInfo = { token: string; csrfToken: string; expiresAt: Date };
export type UserInfo = { id: string; email: string; workspaceId: string; createdAt: Date };

function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

async function startSession(db: Db, user: { id: string; workspaceId: string }, ttlMs: number): Promise<SessionInfo> {
  const token = randomToken();
  const csrfToken = randomToken();
  const expiresAt = new Date(Date.now() + ttlMs);
  await db.insert(sessions).values({ tokenHash: sha256Hex(token), userId: user.id, workspaceId: user.workspaceId, csrfToken, expiresAt });
  return { token, csrfToken, expiresAt };
}

/** Who may sign up (--signup): anyone, only the first account, or nobody. */
export type SignUpPolicy = "open" | "first-only" | "closed";

/**
 * Sign-up: a user, its workspace, and a first session, in one transaction. The first account on
 * a server whose only workspace has no account yet (made by `sieve keys create`) joins that
 * workspace, so the dashboard shows the traffic of the key the quick start created; every other
 * sign-up gets a workspace of its own.
 */
export async function signUp(
  storage: Storage,
  input: { email: string; password: string; workspaceName?: string },
  sessionTtlMs: number,
  policy: SignUpPolicy = "open",
): Promise<{ user: UserInfo; workspace: Workspace; session: SessionInfo; claimed: boolean }> {
  if (policy === "closed") throw new AccountError(403, "signup_closed", "sign-up is closed on this server (--signup closed): ask its operator for an account");
  const email = normaliseEmail(input.email);
  const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
  return storage.transaction(async (tx) => {
    // Sign-ups one at a time (PostgreSQL: an advisory lock; SQLite's write transactions already
    // are): two first sign-ups racing must not both see "no account yet" and both claim the workspace.
    await tx.serialise("signup");
    const { db } = tx;
    // (PostgreSQL hands count back as a string.)
    const accounts = Number((await firstRow(db.select({ n: count() }).from(users)))!.n);
    if (accounts > 0 && policy === "first-only") {
      throw new AccountError(403, "signup_closed", "sign-up is closed on this server (--signup first-only: its first account exists): ask its operator for an account");
    }
    const taken = await firstRow(db.select({ id: users.id }).from(users).where(eq(users.email, email)));
    if (taken) throw new AccountError(409, "email_taken", "an account with this email already exists");
    const all = accounts === 0 ? await listWorkspaces(db) : [];
    const claimed = all.length === 1;
    const workspace = claimed ? all[0]! : await createWorkspace(db, input.workspaceName?.trim() || `${email}'s workspace`);
    const user = (await firstRow(db.insert(users).values({ id: crypto.randomUUID(), workspaceId: workspace.id, email, passwordHash }).returning()))!;
    const session = await startSession(db, user, sessionTtlMs);
    return { user: toUserInfo(user), workspace, session, claimed };
  });
}

export async function logIn(db: Db, input: { email: string; password: string }, sessionTtlMs: number): Promise<{ user: UserInfo; session: SessionInfo }> {
  const user = await firstRow(db.select().from(users).where(eq(users.email, normaliseEmail(input.email))));
  // Verify against a dummy hash when the user is unknown, so timing does not reveal which emails exist.
  const ok = await Bun.password.verify(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new AccountError(401, "invalid_credentials", "email or password is wrong");
  return { user: toUserInfo(user), session: await startSession(db, user, sessionTtlMs) };
}

const DUMMY_HASH = await Bun.password.hash(randomToken(), { algorithm: "argon2id" });

export async function logOut(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, sha256Hex(token)));
}

export type ActiveSession = { user: UserInfo; csrfToken: string; expiresAt: Date };

export async function resolveSession(db: Db, token: string): Promise<ActiveSession | undefined> {
  const row = await firstRow(
    db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), gt(sessions.expiresAt, new Date()))),
  );
  if (!row) return undefined;
  return { user: toUserInfo(row.user), csrfToken: row.session.csrfToken, expiresAt: row.session.expiresAt };
}

function toUserInfo(user: typeof users.$inferSelect): UserInfo {
  return { id: user.id, email: user.email, workspaceId: user.workspaceId, createdAt: user.createdAt };
}
