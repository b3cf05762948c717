import { createHash } from "node:crypto";
import type { Embedder } from "./embedder";

/** The owner of texts that belong to no tenant (the built-in firewall patterns). */
export const SHARED_TEXTS = "";

/** One workspace's view of the memo: what the firewall's scan and output monitor are handed. */
export type WorkspaceVectors = {
  embedMany(texts: string[]): Promise<Float32Array[]>;
  embed(text: string): Promise<Float32Array>;
  peek(text: string): Float32Array | undefined;
};

/**
 * Remembers recent text → vector results (LRU, keyed by SHA-256 of the workspace and the text),
 * so the firewall and the cache share one embedding per text within a request, and conversation
 * history that was already scanned is not embedded again on the next turn. Entries are per
 * workspace: a shared entry would let one tenant time whether another recently sent a text.
 */
export class VectorMemo {
  readonly #entries = new Map<string, Float32Array>();
  /** Texts being embedded right now: a second caller waits for the same inference instead of starting another. */
  readonly #pending = new Map<string, Promise<Float32Array>>();

  constructor(
    private readonly embedder: () => Embedder,
    private readonly capacity = 20_000,
  ) {}

  static key(text: string, workspaceId: string): string {
    return createHash("sha256").update(workspaceId).update("\0").update(text).digest("base64url");
  }

  /** Vectors for `texts`, embedding only the ones this workspace has not embedded recently (or is embedding now), in one batched call. */
  async embedMany(texts: string[], workspaceId: string): Promise<Float32Array[]> {
    const keys = texts.map((text) => VectorMemo.key(text, workspaceId));
    const found = new Map<string, Float32Array | Promise<Float32Array>>();
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      if (found.has(key) || missing.has(key)) return;
      const known = this.#touch(key) ?? this.#pending.get(key);
      if (known) found.set(key, known);
      else missing.set(key, texts[i]!);
    });
    if (missing.size > 0) {
      const batch = this.embedder().embedMany([...missing.values()]);
      [...missing.keys()].forEach((key, i) => {
        const vector = batch.then((vectors) => vectors[i]!);
        vector.catch(() => {}); // whoever waits on it sees the rejection
        this.#pending.set(key, vector);
        found.set(key, vector);
      });
      try {
        const fresh = await batch;
        [...missing.keys()].forEach((key, i) => this.#remember(key, fresh[i]!));
      } finally {
        for (const key of missing.keys()) this.#pending.delete(key);
      }
    }
    return Promise.all(keys.map((key) => found.get(key)!));
  }

  async embed(text: string, workspaceId: string): Promise<Float32Array> {
    return (await this.embedMany([text], workspaceId))[0]!;
  }

  /** A vector this workspace already computed for this text, without embedding it. */
  peek(text: string, workspaceId: string): Float32Array | undefined {
    return this.#touch(VectorMemo.key(text, workspaceId));
  }

  forWorkspace(workspaceId: string): WorkspaceVectors {
    return {
      embedMany: (texts) => this.embedMany(texts, workspaceId),
      embed: (text) => this.embed(text, workspaceId),
      peek: (text) => this.peek(text, workspaceId),
    };
  }

  #touch(key: string): Float32Array | undefined {
    const vector = this.#entries.get(key);
    if (vector) {
      this.#entries.delete(key);
      this.#entries.set(key, vector);
    }
    return vector;
  }

  #remember(key: string, vector: Float32Array) {
    this.#entries.set(key, vector);
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
