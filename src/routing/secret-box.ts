import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const VERSION = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The --secret-key value as 32 bytes: 64 hex characters or base64; undefined when it is neither. */
export function parseSecretKey(raw: string): Buffer | undefined {
  const text = raw.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : /^[A-Za-z0-9+/_-]{43}=?$/.test(text) ? Buffer.from(text, "base64") : undefined;
  return bytes?.length === 32 ? bytes : undefined;
}

/**
 * Workspace secrets at rest: AES-256-GCM under the server's secret key, bound to the workspace and
 * the secret's name (a sealed value copied to another workspace or name does not open).
 */
export class SecretBox {
  constructor(private readonly key: Buffer) {}

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64")}`;
  }

  /** Undefined when the value was sealed under another key or context, or was altered. */
  open(sealed: string, context: string): string | undefined {
    if (!sealed.startsWith(`${VERSION}.`)) return undefined;
    const bytes = Buffer.from(sealed.slice(VERSION.length + 1), "base64");
    if (bytes.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      return undefined;
    }
  }
}

/** The sealing context of one secret: its workspace and name. */
export const secretContext = (workspaceId: string, name: string) => `${workspaceId}/${name}`;

/**
 * The server's secret key: --secret-key when given. Without it, a single SQLite instance keeps a
 * random key in `<data-dir>/secret.key` (mode 0600), made when the first secret is stored; a fleet
 * on PostgreSQL must be given the same --secret-key on every instance, so it has none by default.
 */
export class SecretKeySource {
  #box: SecretBox | undefined;

  constructor(private readonly options: { secretKey: string; dataDir: string; shared: boolean }) {
    if (options.secretKey) this.#box = new SecretBox(parseSecretKey(options.secretKey)!);
  }

  /** Why secrets cannot be stored or read here, or undefined when they can. */
  get unavailable(): string | undefined {
    return this.#box || !this.options.shared ? undefined : "instances sharing a PostgreSQL database need the same --secret-key (SIEVE_SECRET_KEY) to store or read workspace secrets";
  }

  /** The box, making the data dir's key file when `create` and there is none. */
  box(create: boolean): SecretBox | undefined {
    if (this.#box || this.options.shared) return this.#box;
    const file = join(this.options.dataDir, "secret.key");
    if (existsSync(file)) return (this.#box = new SecretBox(readFileSync(file)));
    if (!create) return undefined;
    mkdirSync(this.options.dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32), { mode: 0o600, flag: "wx" });
      chmodSync(file, 0o600);
    } catch (error) {
      // Another process (the CLI, a second server on the same data dir) made it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    return (this.#box = new SecretBox(readFileSync(file)));
  }
}
