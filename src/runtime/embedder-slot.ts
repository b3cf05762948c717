import type { Embedder } from "../embeddings/embedder";
import { httpError } from "../http/errors";

/**
 * The embedder loads in the background after the server starts listening, so /healthz answers
 * at once and /readyz reports when the model is there. Routes that need it either await it
 * (`get`) or refuse with 503 while it loads (`require`).
 */
export class EmbedderSlot {
  #embedder: Embedder | undefined;
  #error: Error | undefined;
  readonly loaded: Promise<Embedder>;

  constructor(load: () => Promise<Embedder>) {
    this.loaded = load().then(
      (embedder) => (this.#embedder = embedder),
      (error: Error) => {
        this.#error = error;
        throw error;
      },
    );
    this.loaded.catch(() => {}); // observed through `error`; not an unhandled rejection
  }

  static of(embedder: Embedder): EmbedderSlot {
    return new EmbedderSlot(async () => embedder);
  }

  get ready(): boolean {
    return this.#embedder !== undefined;
  }

  get error(): Error | undefined {
    return this.#error;
  }

  /** The embedder, or a 503 error while it is still loading. */
  require(): Embedder {
    if (this.#embedder) return this.#embedder;
    if (this.#error) throw httpError(503, "embedder_unavailable", `the embedding model failed to load: ${this.#error.message}`);
    throw httpError(503, "not_ready", "the embedding model is still loading; retry shortly (GET /readyz)", { "retry-after": "1" });
  }
}
