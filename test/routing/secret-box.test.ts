import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseSecretKey, SecretBox, SecretKeySource } from "../../src/routing/secret-box";
import { tempDir } from "../support/temp-dir";

describe("workspace secrets at rest", () => {
  test("a sealed value opens only with its key and its workspace and name", () => {
    const box = new SecretBox(parseSecretKey("11".repeat(32))!);
    const sealed = box.seal("sk-value", "ws-1/openai");
    expect(sealed).not.toContain("sk-value");
    expect(box.seal("sk-value", "ws-1/openai")).not.toBe(sealed); // a fresh nonce each time
    expect(box.open(sealed, "ws-1/openai")).toBe("sk-value");
    expect(box.open(sealed, "ws-2/openai")).toBeUndefined();
    expect(box.open(sealed, "ws-1/other")).toBeUndefined();
    expect(new SecretBox(parseSecretKey("22".repeat(32))!).open(sealed, "ws-1/openai")).toBeUndefined();
    const tampered = sealed.slice(0, -4) + (sealed.endsWith("AAAA") ? "BBBB" : "AAAA");
    expect(box.open(tampered, "ws-1/openai")).toBeUndefined();
  });

  test("--secret-key takes 64 hex characters or base64 of 32 bytes, nothing else", () => {
    expect(parseSecretKey("ab".repeat(32))?.length).toBe(32);
    expect(parseSecretKey(Buffer.alloc(32, 7).toString("base64"))?.length).toBe(32);
    expect(parseSecretKey("ab".repeat(16))).toBeUndefined();
    expect(parseSecretKey("correct horse battery staple")).toBeUndefined();
  });

  test("SQLite keeps a key file made on first use; a fleet without --secret-key has none and says why", () => {
    const dataDir = tempDir();
    const local = new SecretKeySource({ secretKey: "", dataDir, shared: false });
    expect(local.unavailable).toBeUndefined();
    expect(local.box(false)).toBeUndefined();
    expect(existsSync(join(dataDir, "secret.key"))).toBe(false);
    const sealed = local.box(true)!.seal("v", "w/n");
    // A restarted server on the same data dir reads the same key.
    expect(new SecretKeySource({ secretKey: "", dataDir, shared: false }).box(false)!.open(sealed, "w/n")).toBe("v");

    const fleet = new SecretKeySource({ secretKey: "", dataDir: tempDir(), shared: true });
    expect(fleet.unavailable).toContain("--secret-key");
    expect(fleet.box(true)).toBeUndefined();
  });
});
