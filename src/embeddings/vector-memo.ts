import { createHash } from "node:crypto";
import type { Embedder } from "./embedder";

/**
 * Remembers recent text → vector results (LRU, keyed by SHA-256 of the text), so the firewall
 * and the cache share one embedding per text within a request, and conversation history that
 * was already scanned is not embedded again on the next turn.
 */
export class VectorMemo {
  readonly #entries = new Map<string, Float32Array>();

  constructor(
    private readonly embedder: () => Embedder,
    private readonly capacity = 20_000,
  ) {}

  static key(text: string): string {
    return createHash("sha256").update(text).digest("base64url");
  }

  /** Vectors for `texts`, embedding only the ones not seen recently, in one batched call. */
  async embedMany(texts: string[]): Promise<Float32Array[]> {
    const keys = texts.map(VectorMemo.key);
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      if (!this.#touch(key) && !missing.has(key)) missing.set(key, texts[i]!);
    });
    if (missing.size > 0) {
      const fresh = await this.embedder().embedMany([...missing.values()]);
      [...missing.keys()].forEach((key, i) => this.#remember(key, fresh[i]!));
    }
    return keys.map((key) => this.#entries.get(key)!);
  }

  async embed(text: string): Promise<Float32Array> {
    return (await this.embedMany([text]))[0]!;
  }

  /** A vector already computed for this text, without embedding it. */
  peek(text: string): Float32Array | undefined {
    return this.#touch(VectorMemo.key(text));
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
