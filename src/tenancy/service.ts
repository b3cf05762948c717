import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import type { Db } from "../db/connection";
import { apiKeys, sessions, users, workspaces, type KeyRole } from "./schema";
import type { WorkspaceScope } from "./scope";
import { constantTimeEqual, generateApiKey, randomToken, sha256Hex, visiblePrefix } from "./secrets";

export type Workspace = typeof workspaces.$inferSelect;
export type ApiKeyRecord = Omit<typeof apiKeys.$inferSelect, "secretHash">;

/** last_used_at is refreshed at most this often, so key checks stay read-only on the hot path. */
const LAST_USED_RESOLUTION_MS = 60_000;

export function createWorkspace(db: Db, name: string): Workspace {
  return db.insert(workspaces).values({ id: crypto.randomUUID(), name }).returning().get();
}

export function listWorkspaces(db: Db): Workspace[] {
  return db.select().from(workspaces).orderBy(asc(workspaces.createdAt)).all();
}

/**
 * Statements on every request's path (key check, workspace settings), prepared once per
 * database: building and preparing them per call was a third of the proxy's CPU time.
 */
function prepareHotStatements(db: Db) {
  return {
    workspaceById: db.select().from(workspaces).where(eq(workspaces.id, sql.placeholder("id"))).prepare(),
    activeKeyByHash: db
      .select({ id: apiKeys.id, workspaceId: apiKeys.workspaceId, role: apiKeys.role, secretHash: apiKeys.secretHash, lastUsedAt: apiKeys.lastUsedAt })
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

export function findWorkspace(db: Db, id: string): Workspace | undefined {
  return hotStatements(db).workspaceById.get({ id });
}

export function publicKey(record: typeof apiKeys.$inferSelect): ApiKeyRecord {
  const { secretHash: _hidden, ...rest } = record;
  return rest;
}

/** Creates a key; the clear key is returned this once and only its hash is stored. */
export function createApiKey(scope: WorkspaceScope, name: string, role: KeyRole): { key: string; record: ApiKeyRecord } {
  const key = generateApiKey();
  const row = { id: crypto.randomUUID(), name, role, visiblePrefix: visiblePrefix(key), secretHash: sha256Hex(key) };
  const record = scope
    .insert(apiKeys, row)
    .returning()
    .get() as typeof apiKeys.$inferSelect;
  return { key, record: publicKey(record) };
}

export function listApiKeys(scope: WorkspaceScope): ApiKeyRecord[] {
  return scope.select(apiKeys).orderBy(asc(apiKeys.createdAt)).all().map(publicKey);
}

/** Returns the revoked key, or undefined when the id is not a key of this workspace. */
export function revokeApiKey(scope: WorkspaceScope, id: string): ApiKeyRecord | undefined {
  const existing = scope.select(apiKeys, eq(apiKeys.id, id)).get();
  if (!existing) return undefined;
  if (existing.revokedAt) return publicKey(existing);
  const updated = scope.update(apiKeys, { revokedAt: new Date() }, eq(apiKeys.id, id)).returning().get() as typeof apiKeys.$inferSelect;
  return publicKey(updated);
}

export type KeyOwner = { keyId: string; workspaceId: string; role: KeyRole };

/** Looks a presented key up by its hash; revoked keys resolve to nothing. */
export function resolveApiKey(db: Db, presented: string): KeyOwner | undefined {
  const hash = sha256Hex(presented);
  const statements = hotStatements(db);
  const row = statements.activeKeyByHash.get({ hash });
  // The index lookup already matched; the constant-time compare keeps the final check timing-flat.
  if (!row || !constantTimeEqual(row.secretHash, hash)) return undefined;
  const now = Date.now();
  if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) statements.touchKey.run({ id: row.id, now });
  return { keyId: row.id, workspaceId: row.workspaceId, role: row.role };
}

// ---- dashboard accounts -------------------------------------------------------------------

export class AccountError extends Error {
  constructor(
    readonly status: 400 | 401 | 409,
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

function startSession(db: Db, user: { id: string; workspaceId: string }, ttlMs: number): SessionInfo {
  const token = randomToken();
  const csrfToken = randomToken();
  const expiresAt = new Date(Date.now() + ttlMs);
  db.insert(sessions).values({ tokenHash: sha256Hex(token), userId: user.id, workspaceId: user.workspaceId, csrfToken, expiresAt }).run();
  return { token, csrfToken, expiresAt };
}

/** Free sign-up: a user, the workspace it owns, and a first session, in one transaction. */
export async function signUp(
  db: Db,
  input: { email: string; password: string; workspaceName?: string },
  sessionTtlMs: number,
): Promise<{ user: UserInfo; workspace: Workspace; session: SessionInfo }> {
  const email = normaliseEmail(input.email);
  const passwordHash = await Bun.password.hash(input.password, { algorithm: "argon2id" });
  return db.transaction((tx) => {
    const taken = tx.select({ id: users.id }).from(users).where(eq(users.email, email)).get();
    if (taken) throw new AccountError(409, "email_taken", "an account with this email already exists");
    const workspace = createWorkspace(tx as unknown as Db, input.workspaceName?.trim() || `${email}'s workspace`);
    const user = tx.insert(users).values({ id: crypto.randomUUID(), workspaceId: workspace.id, email, passwordHash }).returning().get();
    const session = startSession(tx as unknown as Db, user, sessionTtlMs);
    return { user: toUserInfo(user), workspace, session };
  });
}

export async function logIn(db: Db, input: { email: string; password: string }, sessionTtlMs: number): Promise<{ user: UserInfo; session: SessionInfo }> {
  const user = db.select().from(users).where(eq(users.email, normaliseEmail(input.email))).get();
  // Verify against a dummy hash when the user is unknown, so timing does not reveal which emails exist.
  const ok = await Bun.password.verify(input.password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !ok) throw new AccountError(401, "invalid_credentials", "email or password is wrong");
  return { user: toUserInfo(user), session: startSession(db, user, sessionTtlMs) };
}

const DUMMY_HASH = await Bun.password.hash(randomToken(), { algorithm: "argon2id" });

export function logOut(db: Db, token: string): void {
  db.delete(sessions).where(eq(sessions.tokenHash, sha256Hex(token))).run();
}

export type ActiveSession = { user: UserInfo; csrfToken: string; expiresAt: Date };

export function resolveSession(db: Db, token: string): ActiveSession | undefined {
  const row = db
    .select({ session: sessions, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), gt(sessions.expiresAt, new Date())))
    .get();
  if (!row) return undefined;
  return { user: toUserInfo(row.user), csrfToken: row.session.csrfToken, expiresAt: row.session.expiresAt };
}

function toUserInfo(user: typeof users.$inferSelect): UserInfo {
  return { id: user.id, email: user.email, workspaceId: user.workspaceId, createdAt: user.createdAt };
}
