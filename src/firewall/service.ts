/**
 * The firewall without HTTP: the proxy stage (input check, output monitor), pattern management
 * and the in-memory indexes. Built-ins are loaded into one shared matrix at start-up (from the
 * shipped vectors when they match the embedder, otherwise embedded once the model is ready);
 * each workspace's view (switches + custom patterns) is built on first use and dropped when
 * the workspace changes its patterns.
 */
import { randomUUID } from "node:crypto";
import { UNSCORED_FROM } from "../embeddings/readability";
import { badRequest, httpError } from "../http/errors";
import type { Channel } from "../proxy/dialects/dialect";
import type { ProxiedRequest } from "../proxy/request";
import { ALLOW, firewallOff, type FirewallStage, type FirewallVerdict, type OutputMonitor } from "../proxy/stages";
import { SHARED_TEXTS, VectorMemo } from "../embeddings/vector-memo";
import type { ChunkInjection } from "../documents/chunking";
import type { AppContext } from "../runtime/context";
import type { WorkspaceScope } from "../tenancy/scope";
import { contrastVectors } from "./builtins";
import { CHUNK_SECOND_LOOK_FROM, CHUNK_SECOND_LOOK_TOKENS, chunkInjection } from "./chunk-flags";
import { firewallEmbedderKey, firewallPatternKey, firewallScanOptions, firewallView } from "./encoder";
import { CALIBRATION } from "./calibration";
import { round } from "./decision";
import { BUILTIN_PATTERNS, FAMILY_DEFAULTS } from "./library";
import { scannedTexts, systemPromptText } from "./messages";
import type { z } from "zod";
import { BUILTIN_FAMILIES, type BuiltinFamily, type CreatePatternBody, type PatternSide, type patternView, type UpdatePatternBody } from "./model";
import { FirewallOutputMonitor } from "./output-monitor";
import { BuiltinIndex, WorkspacePatterns } from "./pattern-index";
import { scanTexts, type Embedding, type ScanOptions } from "./scan";
import { shippedPatternVector } from "./shipped-vectors";
import { PatternStore, type BuiltinRow, type CustomRow, type WorkspaceBuiltins } from "./store";

/** Workspaces whose pattern view stays in memory (least recently used dropped first). */
const WORKSPACE_CACHE = 1_000;
const CUSTOM_FAMILY = "custom";
/** What a workspace may change of a built-in pattern. */
const BUILTIN_EDITABLE = ["enabled", "action", "threshold"];

export type PatternRecord = z.infer<typeof patternView>;

export class FirewallService {
  readonly store: PatternStore;
  /** The space of custom patterns, output-side patterns and the system-prompt check (firewallPatternKey). */
  readonly model: string;
  /** The space of the built-in input patterns, contrast texts and calibration (firewallEmbedderKey). */
  readonly inputModel: string;
  readonly options: ScanOptions;
  /** Vectors in `model`'s space: the LRU shared with the cache, or one of their own with --firewall-model-dir. */
  readonly vectors: VectorMemo;
  /** Vectors in `inputModel`'s space: the general model's layer-4 view of the same LRU (the same runs), or `vectors` with --firewall-model-dir. */
  readonly inputVectors: VectorMemo;
  #builtins: BuiltinIndex | undefined;
  readonly #building: Promise<BuiltinIndex>;
  readonly #workspaces = new Map<string, Promise<WorkspacePatterns>>();
  /** Told when a workspace's patterns change, here or on another instance (null: maybe any workspace's). */
  readonly #patternListeners: ((workspaceId: string | null) => void)[] = [];

  constructor(private readonly ctx: AppContext) {
    this.store = new PatternStore(ctx.database);
    this.model = firewallPatternKey(ctx.config);
    this.inputModel = firewallEmbedderKey(ctx.config);
    const view = firewallView(ctx.config);
    this.vectors = view ? ctx.vectors : new VectorMemo(() => ctx.firewallEncoder.require());
    this.inputVectors = view ? ctx.vectors.withView(view) : this.vectors;
    ctx.firewallEncoder.loaded.then(
      () => view && !this.inputVectors.servesView && ctx.log.warn("the general model has no layer-4 output (not written by this project's converter): the firewall compares in its last layer; scores are approximate", { view }),
      () => {}, // reported by /readyz
    );
    this.options = firewallScanOptions(ctx.config);
    if (CALIBRATION.model !== this.inputModel) {
      ctx.log.warn("firewall calibration was fitted with another embedder; scores are approximate", { fitted: CALIBRATION.model, running: this.inputModel });
    }
    // Fleet mode: another instance changed a workspace's patterns (null: maybe anything, after a missed notification).
    ctx.database.onChange((topic, workspaceId) => {
      if (topic === null || workspaceId === null) {
        this.#workspaces.clear();
        this.#patternsChanged(null);
      } else if (topic === "patterns") {
        this.forget(workspaceId);
        this.#patternsChanged(workspaceId);
      }
    });
    this.#building = this.#loadBuiltins();
    this.#building.then(
      (index) => (this.#builtins = index),
      (error: Error) => ctx.log.error("firewall patterns could not be embedded", { error: error.message }),
    );
  }

  /** Seeds/upgrades the built-in rows, stores the vectors they lack (each side in its space), and builds the shared index. */
  async #loadBuiltins(): Promise<BuiltinIndex> {
    const spaceOf = (side: PatternSide) => (side === "input" ? { model: this.inputModel, vectors: this.inputVectors } : { model: this.model, vectors: this.vectors });
    const embedder = (vectors: VectorMemo) => async (texts: string[]) => (await this.ctx.firewallEncoder.loaded, vectors.embedMany(texts, SHARED_TEXTS));
    const missing = await this.store.syncBuiltins((side) => spaceOf(side).model);
    for (const side of ["input", "output"] as const) {
      const { model, vectors } = spaceOf(side);
      const rows = missing.filter((row) => row.side === side);
      const shipped = rows.flatMap((row) => {
        const vector = shippedPatternVector(model, row.id, row.text);
        return vector ? [{ id: row.id, vector }] : [];
      });
      if (shipped.length > 0) await this.store.saveBuiltinVectors(model, shipped);
      const toEmbed = rows.filter((row) => !shipped.some((s) => s.id === row.id));
      if (toEmbed.length > 0) {
        this.ctx.log.info("embedding firewall patterns", { patterns: toEmbed.length, side });
        const fresh = await embedder(vectors)(toEmbed.map((row) => row.text));
        await this.store.saveBuiltinVectors(model, toEmbed.map((row, i) => ({ id: row.id, vector: fresh[i]! })));
      }
    }
    const contrast = await contrastVectors(this.inputModel, embedder(this.inputVectors));
    return new BuiltinIndex(await this.store.loadBuiltins(), contrast, CALIBRATION, contrast[0]?.length ?? 384);
  }

  /** What a scan of this workspace's input embeds with: built-ins in their space, custom patterns in theirs. */
  #scanEmbedding(workspaceId: string, vectors = this.vectors, inputVectors = this.inputVectors): Embedding {
    const input = inputVectors.forWorkspace(workspaceId);
    return inputVectors === vectors ? input : { ...input, customSpace: vectors.forWorkspace(workspaceId) };
  }

  /** The shared index; 503 while the model that must embed it is still loading. */
  async builtins(): Promise<BuiltinIndex> {
    if (this.#builtins) return this.#builtins;
    this.ctx.firewallEncoder.require();
    return this.#building;
  }

  /** This workspace's switches and custom patterns over the shared built-ins. */
  patternsFor(scope: WorkspaceScope): Promise<WorkspacePatterns> {
    const cached = this.#workspaces.get(scope.workspaceId);
    if (cached) {
      this.#workspaces.delete(scope.workspaceId);
      this.#workspaces.set(scope.workspaceId, cached);
      return cached;
    }
    const loading = this.#buildWorkspace(scope);
    this.#workspaces.set(scope.workspaceId, loading);
    loading.catch(() => this.#workspaces.delete(scope.workspaceId));
    if (this.#workspaces.size > WORKSPACE_CACHE) this.#workspaces.delete(this.#workspaces.keys().next().value!);
    return loading;
  }

  async #buildWorkspace(scope: WorkspaceScope): Promise<WorkspacePatterns> {
    const builtins = await this.builtins();
    const seen = await this.store.workspaceBuiltins(scope);
    let { patterns, stale } = await this.store.loadCustom(scope, this.model);
    if (stale.length > 0) {
      // Stored by another embedder (or before a crash): embed again, once.
      const vectors = await this.vectors.embedMany(stale.map((row) => row.text), scope.workspaceId);
      await this.store.saveCustomVectors(scope, this.model, stale.map((row, i) => ({ id: row.id, vector: vectors[i]! })));
      ({ patterns } = await this.store.loadCustom(scope, this.model));
    }
    return new WorkspacePatterns(builtins, (meta) => seen.meta(meta), patterns);
  }

  /** Drops a workspace's pattern view: changed here, or on another instance (fleet notification). */
  forget(workspaceId: string): void {
    this.#workspaces.delete(workspaceId);
  }

  /** Calls `listener` whenever a workspace's patterns change, on this instance or another (null: maybe any workspace's). */
  onPatternsChanged(listener: (workspaceId: string | null) => void): void {
    this.#patternListeners.push(listener);
  }

  #patternsChanged(workspaceId: string | null): void {
    for (const listener of this.#patternListeners) listener(workspaceId);
  }

  #changed(scope: WorkspaceScope): void {
    this.forget(scope.workspaceId);
    this.#patternsChanged(scope.workspaceId);
    void scope.announce("patterns").catch((error: Error) => this.ctx.log.warn("firewall: announcing a pattern change failed", { error: error.message }));
  }

  // — the proxy stage —

  async checkInput(request: ProxiedRequest): Promise<FirewallVerdict> {
    const texts = scannedTexts(request.view.texts, request.workspace.firewallScanSystem);
    if (texts.length === 0) return ALLOW;
    const patterns = await this.patternsFor(request.scope);
    return (await scanTexts(texts, patterns, this.#scanEmbedding(request.scope.workspaceId), this.options)).verdict;
  }

  outputMonitor(request: ProxiedRequest): OutputMonitor | undefined {
    const systemPrompt = systemPromptText(request.view.texts);
    let settled: { monitor: FirewallOutputMonitor | undefined } | undefined;
    const pending = this.patternsFor(request.scope).then((patterns) => {
      settled = { monitor: FirewallOutputMonitor.needed(patterns, systemPrompt) ? new FirewallOutputMonitor(patterns, this.vectors.forWorkspace(request.scope.workspaceId), this.options, systemPrompt) : undefined };
      return settled.monitor;
    });
    pending.catch(() => {}); // surfaces on the first inspect
    return {
      // Once the patterns are in, an event with no window due is answered at once, so the stream relay sends it on without waiting.
      inspect: (added, textSoFar) => (settled ? (settled.monitor?.inspect(added, textSoFar) ?? ALLOW) : pending.then((monitor) => monitor?.inspect(added, textSoFar) ?? ALLOW)),
      finish: async (fullText) => (await pending)?.finish(fullText) ?? ALLOW,
    };
  }

  // — document chunks (src/documents/processing.ts) —

  /**
   * Each text's data-channel verdict (chunk-flags.ts), every window scored: a chunk is bounded in
   * size and scanned once, so the request path's window budget does not apply (its second look is
   * capped and starts higher: CHUNK_SECOND_LOOK_TOKENS, CHUNK_SECOND_LOOK_FROM). Windows are embedded
   * at bulk priority through a memo of this call's own, so a document's windows neither run before
   * request-path texts nor push them out of the shared LRU; all texts are scanned at once, so the
   * pool's workers share the whole batch's windows. `checkedWith` names the patterns they were
   * scanned with (WorkspacePatterns.inputFingerprint).
   */
  async scanDocumentTexts(scope: WorkspaceScope, texts: string[]): Promise<{ injections: ChunkInjection[]; checkedWith: string }> {
    await this.ctx.firewallEncoder.loaded;
    const patterns = await this.patternsFor(scope);
    const memo = new VectorMemo(() => this.ctx.firewallEncoder.require(), Number.POSITIVE_INFINITY, undefined, undefined, "bulk");
    const view = firewallView(this.ctx.config);
    const embedding = this.#scanEmbedding(scope.workspaceId, memo, view ? memo.withView(view) : memo);
    const options = { ...this.options, budgetTokens: 0, secondLookTokens: CHUNK_SECOND_LOOK_TOKENS, secondLookFrom: CHUNK_SECOND_LOOK_FROM };
    const injections = await Promise.all(texts.map(async (text) => chunkInjection(await scanTexts([{ text, channel: "data" }], patterns, embedding, options))));
    return { injections, checkedWith: patterns.inputFingerprint };
  }

  /** The fingerprint of the patterns a chunk scanned now would be scanned with. */
  async chunkPatternsFingerprint(scope: WorkspaceScope): Promise<string> {
    await this.ctx.firewallEncoder.loaded;
    return (await this.patternsFor(scope)).inputFingerprint;
  }

  /** The same, or undefined while the built-in patterns are still being loaded (a read need not wait for the model). */
  async chunkPatternsFingerprintIfReady(scope: WorkspaceScope): Promise<string | undefined> {
    return this.#builtins ? (await this.patternsFor(scope)).inputFingerprint : undefined;
  }

  // — POST /v1/firewall/test —

  async test(scope: WorkspaceScope, text: string, channel: Channel = "user") {
    const started = performance.now();
    const patterns = await this.patternsFor(scope);
    const result = await scanTexts([{ text, channel }], patterns, this.#scanEmbedding(scope.workspaceId), this.options);
    return {
      verdict: result.verdict.action,
      channel,
      reason: result.verdict.reason,
      matches: result.verdict.matches,
      top: result.best
        ? {
            pattern_id: result.best.pattern.id,
            family: result.best.pattern.family,
            similarity: round(result.best.similarity),
            score: round(result.best.score),
            ...(result.best.origin ? { window: { offset: result.best.origin.offset } } : {}),
            // Why a score sits far from what the similarity alone would give.
            ...(result.best.lexical === undefined ? {} : { lexical: round(result.best.lexical) }),
          }
        : null,
      windows: result.windows,
      skipped_windows: result.skipped,
      second_look_windows: result.secondLook,
      latency_ms: round(performance.now() - started),
    };
  }

  // — pattern management —

  async listPatterns(scope: WorkspaceScope): Promise<PatternRecord[]> {
    const seen = await this.store.workspaceBuiltins(scope);
    return [
      ...(await this.store.builtinRows()).map((row) => builtinRecord(row, seen)),
      ...(await this.store.customRows(scope)).map(customRecord),
    ];
  }

  async createPattern(scope: WorkspaceScope, body: CreatePatternBody): Promise<PatternRecord> {
    const text = this.#readablePatternText(body.text.trim());
    const vector = await this.vectors.embed(text, scope.workspaceId);
    const row = await this.store.insertCustom(scope, randomUUID(), { text, action: body.action, threshold: body.threshold, family: body.family ?? CUSTOM_FAMILY, side: body.side ?? "input" }, this.model, vector);
    this.#changed(scope);
    return customRecord(row);
  }

  /**
   * Custom patterns: any field. Built-ins: `enabled`, `action` and `threshold`, for this workspace
   * (their text, family and side belong to the library).
   */
  async updatePattern(scope: WorkspaceScope, id: string, body: UpdatePatternBody): Promise<PatternRecord> {
    const builtin = await this.store.findBuiltin(id);
    if (builtin) {
      const fixed = Object.keys(body).filter((key) => !BUILTIN_EDITABLE.includes(key));
      if (fixed.length > 0) throw httpError(400, "invalid_request", `body.${fixed[0]}: a built-in pattern's ${fixed[0]} belongs to the library; a workspace can change its ${BUILTIN_EDITABLE.join(", ")}`);
      await this.store.updateBuiltin(scope, builtin, { enabled: body.enabled, action: body.action, threshold: body.threshold });
      this.#changed(scope);
      return builtinRecord(builtin, await this.store.workspaceBuiltins(scope));
    }
    const existing = await this.store.findCustom(scope, id);
    if (!existing) throw patternNotFound();
    const { text: rawText, ...rest } = body;
    const text = rawText === undefined ? undefined : this.#readablePatternText(rawText.trim());
    // A new text is embedded before anything is written: the row never holds a text without its vector.
    const vector = text !== undefined && text !== existing.text ? { model: this.model, vector: await this.vectors.embed(text, scope.workspaceId) } : undefined;
    const row = await this.store.updateCustom(scope, id, { ...rest, ...(text !== undefined ? { text } : {}) }, vector);
    if (!row) throw patternNotFound();
    this.#changed(scope);
    return customRecord(row);
  }

  /**
   * A pattern text the encoder reads mostly as [UNK] (Thai, Ethiopic, …) would embed like every
   * other text in its script: it could never fire on input (such windows are left unscored) and
   * would fire on every answer in that script. Refused, naming why.
   */
  #readablePatternText(text: string): string {
    const unknown = this.options.readability.unknownShare(text);
    if (unknown >= UNSCORED_FROM) {
      throw badRequest(`body.text: the firewall's encoder cannot read ${Math.round(unknown * 100)}% of its words (a script its vocabulary lacks, e.g. Thai or Ethiopic); as a pattern it would match nothing, or every text in that script`);
    }
    return text;
  }

  async deletePattern(scope: WorkspaceScope, id: string): Promise<void> {
    if (await this.store.findBuiltin(id)) throw httpError(400, "invalid_request", "built-in patterns cannot be deleted; PATCH them with {\"enabled\": false}");
    if (!(await this.store.deleteCustom(scope, id))) throw patternNotFound();
    this.#changed(scope);
  }

  async listFamilies(scope: WorkspaceScope) {
    const disabled = await this.store.disabledFamilies(scope);
    return BUILTIN_FAMILIES.map((family) => familyRecord(family, !disabled.has(family)));
  }

  async setFamilyEnabled(scope: WorkspaceScope, family: string, enabled: boolean) {
    if (!(BUILTIN_FAMILIES as readonly string[]).includes(family)) throw httpError(404, "not_found", `no built-in family ${family}; families: ${BUILTIN_FAMILIES.join(", ")}`);
    await this.store.setFamilyEnabled(scope, family, enabled);
    this.#changed(scope);
    return familyRecord(family as BuiltinFamily, enabled);
  }
}

const patternNotFound = () => httpError(404, "not_found", "firewall pattern not found");

/** A built-in as the workspace sees it: its switch, and its own action and threshold where it set them. */
function builtinRecord(row: BuiltinRow, seen: WorkspaceBuiltins): PatternRecord {
  const { action, threshold } = { action: row.action, threshold: row.threshold, ...seen.override(row.id) };
  return { id: row.id, family: row.family, side: row.side, text: row.text, action, threshold, enabled: seen.enabled(row), built_in: true, created_at: row.createdAt.toISOString() };
}

function customRecord(row: CustomRow): PatternRecord {
  return { id: row.id, family: row.family, side: row.side, text: row.text, action: row.action, threshold: row.threshold, enabled: row.enabled, built_in: false, created_at: row.createdAt.toISOString() };
}

function familyRecord(family: BuiltinFamily, enabled: boolean) {
  const defaults = FAMILY_DEFAULTS[family];
  return { family, enabled, patterns: BUILTIN_PATTERNS.filter((p) => p.family === family).length, default_action: defaults.action, default_threshold: defaults.threshold };
}

const services = new WeakMap<AppContext, FirewallService>();

/** One service per running app: the stage and the controller share its indexes. */
export function firewallService(ctx: AppContext): FirewallService {
  let service = services.get(ctx);
  if (!service) services.set(ctx, (service = new FirewallService(ctx)));
  return service;
}

/** The proxy's firewall stage (off with --firewall false). */
export function firewallStage(ctx: AppContext): FirewallStage {
  if (!ctx.config.firewall) return firewallOff;
  const service = firewallService(ctx);
  return { checkInput: (request) => service.checkInput(request), outputMonitor: (request) => service.outputMonitor(request) };
}
