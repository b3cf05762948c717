import type { Config } from "../config";
import type { CacheRejection } from "../evidence/schema";
import { foldForModels, hasTokens } from "../embeddings/model-text";
import type { Readability } from "../embeddings/readability";
import type { VectorMemo } from "../embeddings/vector-memo";
import type { Logger } from "../logging/logger";
import type { CacheMetrics } from "../metrics/cache";
import type { ProxiedRequest } from "../proxy/request";
import type { CacheStage, CachedCompletion } from "../proxy/stages";
import { generalVectorSpace } from "../runtime/assets";
import type { EmbedderSlot } from "../runtime/embedder-slot";
import type { WorkspaceScope } from "../tenancy/scope";
import { prepareForMatching, promptFacts, type PromptFacts } from "./guard";
import type { CacheCounters } from "./counters";
import { chooseMatch, type Candidate } from "./match";
import { cacheKeys, type CacheKeys } from "./request-key";
import {
  attachVector,
  DEFAULT_SEMANTIC_THRESHOLD,
  findExact,
  forgetCandidate,
  loadEntry,
  semanticCandidates,
  storeEntry,
  type EntryRef,
  type StoredEntry,
} from "./service";
import { SingleFlight } from "./single-flight";

/** What the cache reads of a proxied request (eval and bench build these without HTTP). */
export type CacheRequest = Pick<ProxiedRequest, "scope" | "workspace" | "upstreamUrl" | "view" | "cacheControl" | "clientSignal">;

/** The sign bits are 384 (PostgreSQL's bit(384) column, SQLite's 48-byte sign_bits): all-MiniLM-L6-v2's dimensions. Another model: exact hits only. */
const VECTOR_DIMENSIONS = 384;

/**
 * The embedding model reads 254 content tokens and ignores the rest: two long prompts that differ
 * after that would look identical, so longer prompts match exactly or not at all. A token spans at
 * least one character, so shorter texts are not even tokenised to check.
 */
const MAX_SEMANTIC_TOKENS = 254;

/** What one request's lookup found: the entry that answered it, or nothing. */
type LookupOutcome = { entry: StoredEntry; kind: "exact" | "semantic" } | "miss";

/** Entries (stored or verified) whose prompt facts are kept: near-identical prompts meet the same candidates again and again. */
const REMEMBERED_FACTS = 4096;

export type ResponseCacheDeps = { config: Config; vectors: Pick<VectorMemo, "embed" | "peek">; embedder: EmbedderSlot; log: Logger; metrics: { cache: CacheMetrics }; cacheCounters: CacheCounters };

/**
 * Stage 2 of the proxy: exact lookup by request key, then semantic lookup among the entries of
 * the same scope (workspace, upstream, model, parameters, conversation prefix) guarded by the
 * answer-determining facts of the prompt; single-flight for identical requests in flight.
 * A cache failure is logged and treated as a miss: it never fails the request.
 */
export class ResponseCache implements CacheStage {
  readonly #deps: ResponseCacheDeps;
  readonly #vectorSpace: string;
  readonly #flights = new SingleFlight();
  readonly #keys = new WeakMap<CacheRequest, CacheKeys>();
  /** The request's semantic prompt, decided once: lookup and store both need it, and a long prompt's token count is not free. */
  readonly #semanticPrompts = new WeakMap<CacheRequest, string | undefined>();
  readonly #rejections = new WeakMap<CacheRequest, CacheRejection>();
  /** Entry id → facts of its prompt (ids are never reused: a replaced entry gets a new one). */
  readonly #entryFacts = new Map<number, PromptFacts>();
  /** The facts of the request's own prompt, once computed (prepare, or a lookup that verified candidates); the store keeps them for its entry. */
  readonly #queryFacts = new WeakMap<CacheRequest, PromptFacts>();
  /** Requests whose lookup has begun: what prepare would do ahead is then the lookup's to do. */
  readonly #lookingUp = new WeakSet<CacheRequest>();
  /**
   * Requests looked up before their input verdict (parallel mode), with their lookup's outcome once
   * known: counted in the cache's stats and metrics only when the request is let through
   * (countLookup). A request the firewall blocks was neither answered from the cache nor forwarded.
   */
  readonly #countLater = new WeakMap<CacheRequest, LookupOutcome | undefined>();

  constructor(deps: ResponseCacheDeps) {
    this.#deps = deps;
    // Vectors of another model or precision are not comparable: they live in other scopes.
    this.#vectorSpace = generalVectorSpace(deps.config);
  }

  async claim(request: CacheRequest): Promise<(() => void) | undefined> {
    if (!request.workspace.cacheEnabled) return undefined;
    return this.#flights.claim(this.keysOf(request).exactKey, request.clientSignal);
  }

  async lookup(request: CacheRequest): Promise<CachedCompletion | undefined> {
    return (await this.#guarded(request, () => this.#exact(request))) ?? (await this.#guarded(request, () => this.#semantic(request)));
  }

  /** The exact lookup alone: one indexed read, no embedding. Counted by countLookup. */
  lookupExact(request: CacheRequest): Promise<CachedCompletion | undefined> {
    this.#deferCount(request);
    return this.#guarded(request, () => this.#exact(request));
  }

  /** The semantic lookup alone (it embeds the prompt): a miss when it finds nothing. Counted by countLookup. */
  lookupSemantic(request: CacheRequest): Promise<CachedCompletion | undefined> {
    this.#deferCount(request);
    return this.#guarded(request, () => this.#semantic(request));
  }

  /** Counts the outcome of the request's lookupExact / lookupSemantic, once the firewall has let it through. */
  countLookup(request: CacheRequest): void {
    const outcome = this.#countLater.get(request);
    this.#countLater.delete(request);
    if (outcome) this.#count(request.scope, outcome);
  }

  #deferCount(request: CacheRequest): void {
    if (!this.#countLater.has(request)) this.#countLater.set(request, undefined);
  }

  /**
   * The prompt's facts for the guard need no vector: they are computed while the firewall's encoder
   * runs, after one turn of the event loop so that its run is dispatched first (the pool submits on
   * a microtask). A semantic lookup that has begun by then computes them itself if it needs them.
   */
  prepare(request: CacheRequest): void {
    if (!request.workspace.cacheEnabled || !request.workspace.cacheSemantic || !request.cacheControl.lookup) return;
    setImmediate(() => {
      if (this.#lookingUp.has(request)) return;
      try {
        const prompt = this.#semanticPromptOf(request);
        if (prompt !== undefined) this.#queryFactsOf(request, prompt);
      } catch (error) {
        this.#deps.log.debug("cache: preparing a lookup failed; the lookup does it", { error: (error as Error).message });
      }
    });
  }

  async #guarded(request: CacheRequest, lookup: () => Promise<CachedCompletion | undefined>): Promise<CachedCompletion | undefined> {
    if (!request.workspace.cacheEnabled) return undefined;
    this.#lookingUp.add(request);
    try {
      return await lookup();
    } catch (error) {
      this.#deps.log.error("cache lookup failed; treated as a miss", { error: (error as Error).message });
      return undefined;
    }
  }

  /** Off the response's path: the answer is already on its way, the write follows. */
  async store(request: CacheRequest, completion: Record<string, unknown>, upstreamMs: number): Promise<void> {
    if (!request.workspace.cacheEnabled) return;
    await this.#store(request, completion, upstreamMs).catch((error) => this.#deps.log.error("cache store failed", { error: (error as Error).message }));
  }

  rejectedCandidate(request: CacheRequest): CacheRejection | undefined {
    return this.#rejections.get(request);
  }

  /** The request's keys as the cache computes them (once per request). Only requests with a cache subject reach the cache. */
  keysOf(request: CacheRequest): CacheKeys {
    let keys = this.#keys.get(request);
    if (!keys) {
      const { view } = request;
      if (!view.cache) throw new Error(`${view.api} request without a cache subject reached the cache`);
      keys = cacheKeys({ workspaceId: request.scope.workspaceId, upstreamUrl: request.upstreamUrl, api: view.api, model: view.model, subject: view.cache, vectorSpace: this.#vectorSpace });
      this.#keys.set(request, keys);
    }
    return keys;
  }

  async #exact(request: CacheRequest): Promise<CachedCompletion | undefined> {
    const keys = this.keysOf(request);
    const exact = await this.#deps.metrics.cache.database.time("cache_exact_lookup", () => findExact(request.scope, keys.exactKey, Date.now()));
    return exact && this.#hit(request, exact, "exact", 1);
  }

  async #semantic(request: CacheRequest): Promise<CachedCompletion | undefined> {
    const { scope, workspace } = request;
    const keys = this.keysOf(request);
    const { metrics } = this.#deps;
    const prompt = this.#semanticPromptOf(request);
    const vector = prompt === undefined ? undefined : await this.#embed(prompt, scope.workspaceId);
    if (prompt !== undefined && vector) {
      const threshold = workspace.cacheThreshold ?? DEFAULT_SEMANTIC_THRESHOLD;
      const candidates = await metrics.cache.database.time("cache_semantic_lookup", () => semanticCandidates(scope, keys.scopeKey, vector, Date.now(), threshold));
      const readability = this.#deps.embedder.require().readability;
      for (let remaining = candidates; ; ) {
        const { hit, rejected } = chooseMatch(prompt, remaining, threshold, {
          readability,
          factsOf: (candidate) => this.#factsOf(candidate, readability),
          queryFacts: () => this.#queryFactsOf(request, prompt),
        });
        for (const { candidate, check, reason } of rejected) {
          metrics.cache.rejected(check);
          this.#deps.log.debug("cache: semantic candidate rejected by the verifier", { key: candidate.entry.key, similarity: candidate.similarity, reason });
        }
        const [first] = rejected;
        if (first && !this.#rejections.has(request)) this.#rejections.set(request, { similarity: Number(first.candidate.similarity.toFixed(4)), reason: first.reason });
        if (!hit) break;
        const entry = await loadEntry(scope, hit.entry.id);
        if (entry) return this.#hit(request, entry, "semantic", hit.similarity);
        // Its row is gone (deleted behind the in-memory index's back): it leaves the index, and a
        // less similar candidate the verifier has not judged yet may still answer.
        forgetCandidate(scope, keys.scopeKey, hit.entry.id);
        const judged = new Set([hit, ...rejected.map((r) => r.candidate)]);
        remaining = remaining.filter((candidate) => !judged.has(candidate));
      }
    }
    this.#tally(request, "miss");
    return undefined;
  }

  /** Counts a lookup's outcome now, or keeps it for countLookup. */
  #tally(request: CacheRequest, outcome: LookupOutcome): void {
    if (this.#countLater.has(request)) this.#countLater.set(request, outcome);
    else this.#count(request.scope, outcome);
  }

  #count(scope: WorkspaceScope, outcome: LookupOutcome): void {
    if (outcome === "miss") {
      this.#deps.cacheCounters.miss(scope);
      this.#deps.metrics.cache.misses.inc();
    } else {
      this.#deps.cacheCounters.hit(scope, outcome.entry, outcome.kind, Date.now());
      this.#deps.metrics.cache.hits[outcome.kind].inc();
    }
  }

  #factsOf({ entry, prompt }: Candidate<EntryRef>, readability: Readability): PromptFacts {
    const facts = this.#entryFacts.get(entry.id) ?? promptFacts(foldForModels(prompt), readability);
    this.#rememberFacts(entry.id, facts);
    return facts;
  }

  /** Most recently used last. */
  #rememberFacts(entryId: number, facts: PromptFacts): void {
    this.#entryFacts.delete(entryId);
    this.#entryFacts.set(entryId, facts);
    if (this.#entryFacts.size > REMEMBERED_FACTS) this.#entryFacts.delete(this.#entryFacts.keys().next().value!);
  }

  /** `prompt` is the request's semantic prompt (#semanticPromptOf). */
  #queryFactsOf(request: CacheRequest, prompt: string): PromptFacts {
    let facts = this.#queryFacts.get(request);
    if (!facts) this.#queryFacts.set(request, (facts = prepareForMatching(promptFacts(prompt, this.#deps.embedder.require().readability))));
    return facts;
  }

  #hit(request: CacheRequest, entry: StoredEntry, kind: "exact" | "semantic", similarity: number): CachedCompletion {
    this.#tally(request, { entry, kind });
    return { completion: JSON.parse(entry.completion), body: entry.completion, key: entry.key, kind, similarity, savedUpstreamMs: entry.upstreamMs };
  }

  async #store(request: CacheRequest, completion: Record<string, unknown>, upstreamMs: number): Promise<void> {
    const { scope, workspace } = request;
    const keys = this.keysOf(request);
    const prompt = this.#semanticPromptOf(request);
    // Usually the lookup (or the firewall) embedded this very text a moment ago; if not (no-cache), later.
    const vector = prompt === undefined ? undefined : this.#deps.vectors.peek(prompt, scope.workspaceId);
    const id = await storeEntry(
      scope,
      {
        key: keys.exactKey,
        scopeKey: keys.scopeKey,
        model: request.view.model,
        prompt: keys.prompt,
        completion: JSON.stringify(completion),
        upstreamMs,
        ttlSeconds: request.cacheControl.ttlSeconds ?? workspace.cacheTtlSeconds,
      },
      workspace.cacheMaxEntries,
      Date.now(),
      vector,
      this.#deps.cacheCounters.takeUses(scope.workspaceId),
    );
    // The facts this request's lookup computed are the new entry's (its prompt is the same text): a paraphrase that finds it need not compute them.
    const facts = this.#queryFacts.get(request);
    if (facts) this.#rememberFacts(id, facts);
    if (prompt !== undefined && !vector) void this.#attachLater(request, id, keys.scopeKey, prompt);
  }

  async #attachLater(request: CacheRequest, id: number, scopeKey: string, prompt: string): Promise<void> {
    const vector = await this.#embed(prompt, request.scope.workspaceId);
    try {
      if (vector) await attachVector(request.scope, id, scopeKey, vector);
    } catch (error) {
      this.#deps.log.error("cache: storing a vector failed; the entry will only hit exactly", { error: (error as Error).message });
    }
  }

  /** The prompt's vector, or undefined (logged) when it cannot be embedded: the request then only matches exactly. */
  async #embed(prompt: string, workspaceId: string): Promise<Float32Array | undefined> {
    try {
      return await this.#deps.vectors.embed(prompt, workspaceId);
    } catch (error) {
      this.#deps.log.warn("cache: cannot embed the prompt; exact matching only", { error: (error as Error).message });
      return undefined;
    }
  }

  #semanticPromptOf(request: CacheRequest): string | undefined {
    if (!request.workspace.cacheSemantic) return undefined;
    if (!this.#semanticPrompts.has(request)) this.#semanticPrompts.set(request, this.#semanticPrompt(this.keysOf(request).prompt));
    return this.#semanticPrompts.get(request);
  }

  /**
   * The prompt as the provider's model reads it (tag characters spelled out, compatibility forms
   * folded: model-text.ts) when a semantic lookup can judge it: embedder ready, its vectors fit
   * the table, the encoder sees at least one token (text hidden from it would otherwise match
   * anything that looks the same), text within the model's window. Parts the encoder reads only
   * as [UNK] are compared by the guard (guard.ts, "unread").
   */
  #semanticPrompt(raw: string | undefined): string | undefined {
    if (raw === undefined || !this.#deps.embedder.ready) return undefined;
    const embedder = this.#deps.embedder.require();
    if (embedder.dimensions !== VECTOR_DIMENSIONS) return undefined;
    // Tokenizing runs on the event loop in time linear in the text (a 9 MB prompt: ~7 s). No real
    // text averages 100 characters per token, so anything longer is over the limit without counting
    // (or folding: NFKC is a pass over the text too).
    if (raw.length > MAX_SEMANTIC_TOKENS * 100) return undefined;
    const prompt = foldForModels(raw);
    if (!hasTokens(prompt)) return undefined;
    if (prompt.length > MAX_SEMANTIC_TOKENS && embedder.countTokens(prompt) > MAX_SEMANTIC_TOKENS) return undefined;
    return prompt;
  }
}
