/**
 * How each API authenticates, as OpenAPI security requirements (the schemes are declared in
 * src/docs/index.ts). Alternatives are listed in order of use: an app's key first, then the
 * dashboard's session cookie, which every key-authenticated API also accepts.
 */
type SecurityRequirements = Record<string, string[]>[];

const SESSION = { sessionCookie: [] };

/** The proxy, cache, firewall, evidence and embeddings APIs: X-Service-Api-Key (+ X-Service-Workspace-Id). */
export const SERVICE_KEY_SECURITY: SecurityRequirements = [{ serviceKey: [], serviceWorkspace: [] }, SESSION];

/** The document, key, workspace and routing APIs: Authorization: Bearer <key>. */
export const BEARER_KEY_SECURITY: SecurityRequirements = [{ bearerKey: [] }, SESSION];

/** Routes of a logged-in dashboard user only. */
export const SESSION_SECURITY: SecurityRequirements = [SESSION];
