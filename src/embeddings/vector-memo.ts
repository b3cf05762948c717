import { createHash } from "node:crypto";
import type { Priority } from "../inference/priority-queue";
import type { Embedder } from "./embedder";

/** The owner of texts that belong to no tenant (the built-in firewall patterns). */
export const SHARED_TEXTS = "";

/** One workspace's view of the memo: what the firewall's scan and output monitor are handed. */
export type WorkspaceVectors = {
  embedMany(texts: string[]): Promise<Float32Array[]>;
  embed(text: string): Promise<Float32Array>;
  peek(text: string): Float32Array | undefined;
};

/** What a memo and its views share: remembered vectors (all of a text's views) and the inferences running now. */
type MemoStore = { entries: Map<string, Float32Array[]>; pending: Map<string, Promise<Float32Array[]>> };

/**
 * Remembers recent text → vector results (LRU, keyed by SHA-256 of the workspace and the text),
 * so the firewall and the cache share one embedding per text within a request, and conversation
 * history that was already scanned is not embedded again on the next turn. Entries are per
 * workspace: a shared entry would let one tenant time whether another recently sent a text.
 *
 * One inference yields all of a text's vectors (the model's main output and its views, e.g. the
 * firewall's mean_hidden_state_4); `withView` gives a memo over the same entries that answers
 * with one view, so the firewall and the cache still share each run.
 */
export class VectorMemo {
  readonly #store: MemoStore;
  /** Which of a run's vectors this memo answers with: undefined, the main one. */
  readonly #view: string | undefined;
  /** The inference priority of what this memo embeds: bulk for document chunks (the firewall's chunk flags). */
  readonly #priority: Priority;

  constructor(
    private readonly embedder: () => Embedder,
    private readonly capacity = 20_000,
    store: MemoStore = { entries: new Map(), pending: new Map() },
    view?: string,
    priority: Priority = "request",
  ) {
    this.#store = store;
    this.#view = view;
    this.#priority = priority;
  }

  /** The same remembered runs, answering with the named view (see Embedder.views); the main vector if the model has no such view. */
  withView(view: string): VectorMemo {
    return new VectorMemo(this.embedder, this.capacity, this.#store, view, this.#priority);
  }

  /** Whether this memo answers with the named view (false: the model lacks it, the main vector stands in). */
  get servesView(): boolean {
    return this.#view !== undefined && this.embedder().views.includes(this.#view);
  }

  static key(text: string, workspaceId: string): string {
    return createHash("sha256").update(workspaceId).update("\0").update(text).digest("base64url");
  }

  /** Vectors for `texts`, embedding only the ones this workspace has not embedded recently (or is embedding now), in one batched call. */
  async embedMany(texts: string[], workspaceId: string): Promise<Float32Array[]> {
    const { pending } = this.#store;
    const keys = texts.map((text) => VectorMemo.key(text, workspaceId));
    const found = new Map<string, Float32Array[] | Promise<Float32Array[]>>();
    const missing = new Map<string, string>();
    keys.forEach((key, i) => {
      if (found.has(key) || missing.has(key)) return;
      const known = this.#touch(key) ?? pending.get(key);
      if (known) found.set(key, known);
      else missing.set(key, texts[i]!);
    });
    if (missing.size > 0) {
      const batch = this.embedder().embedManyViews([...missing.values()], { priority: this.#priority });
      [...missing.keys()].forEach((key, i) => {
        const views = batch.then((all) => all[i]!);
        views.catch(() => {}); // whoever waits on it sees the rejection
        pending.set(key, views);
        found.set(key, views);
      });
      try {
        const fresh = await batch;
        [...missing.keys()].forEach((key, i) => this.#remember(key, fresh[i]!));
      } finally {
        for (const key of missing.keys()) pending.delete(key);
      }
    }
    const index = this.embedder().viewIndex(this.#view);
    return Promise.all(keys.map(async (key) => (await found.get(key)!)[index]!));
  }

  async embed(text: string, workspaceId: string): Promise<Float32Array> {
    return (await this.embedMany([text], workspaceId))[0]!;
  }

  /** A vector this workspace already computed for this text, without embedding it. */
  peek(text: string, workspaceId: string): Float32Array | undefined {
    return this.#touch(VectorMemo.key(text, workspaceId))?.[this.embedder().viewIndex(this.#view)];
  }

  forWorkspace(workspaceId: string): WorkspaceVectors {
    return {
      embedMany: (texts) => this.embedMany(texts, workspaceId),
      embed: (text) => this.embed(text, workspaceId),
      peek: (text) => this.peek(text, workspaceId),
    };
  }

  #touch(key: string): Float32Array[] | undefined {
    const { entries } = this.#store;
    const vectors = entries.get(key);
    if (vectors) {
      entries.delete(key);
      entries.set(key, vectors);
    }
    return vectors;
  }

  #remember(key: string, vectors: Float32Array[]) {
    const { entries } = this.#store;
    entries.set(key, vectors);
    if (entries.size > this.capacity) entries.delete(entries.keys().next().value!);
  }
}
