import { createHash } from "node:crypto";
import { type Calibration, familyIndex } from "./calibration";
import { LEXICAL, type LexicalScorer } from "./lexical";
import { SYSTEM_PROMPT_PATTERN_ID, type PatternAction, type PatternSide } from "./model";
import { VectorMatrix } from "./vector-matrix";

/** What scoring needs to know about a pattern (the text stays in the database). */
export type PatternMeta = {
  id: string;
  family: string;
  side: PatternSide;
  action: PatternAction;
  threshold: number;
  builtIn: boolean;
};

export type IndexedPattern = { meta: PatternMeta; vector: Float32Array };

/**
 * Everything shared by all workspaces, in memory: the built-in patterns, the contrast texts and
 * the learned head, stacked into one matrix per side so one product scores a batch of windows
 * against all of them, and the lexical model. Rebuilt when the built-in rows change (start-up,
 * library upgrade).
 */
export class BuiltinIndex {
  readonly input: PatternMeta[];
  readonly output: PatternMeta[];
  /** Rows: input patterns, then contrast texts, then the head's weight vector (if any). */
  readonly inputMatrix: VectorMatrix;
  readonly outputMatrix: VectorMatrix;
  /** Calibration family index of each input pattern row. */
  readonly familyOfRow: Int32Array;
  readonly contrastRows: number;
  readonly hasHead: boolean;
  /** The head's weights on the last-layer vector (the custom patterns' space), one row; undefined when the calibration has none. */
  readonly lastLayerHead: VectorMatrix | undefined;
  readonly systemPrompt: PatternMeta | undefined;

  constructor(
    patterns: IndexedPattern[],
    contrast: Float32Array[],
    readonly calibration: Calibration,
    readonly dims: number,
    /** The lexical signal added to built-in scores (lexical.ts); evaluation passes others to compare. */
    readonly lexical: LexicalScorer = LEXICAL,
  ) {
    const families = familyIndex(calibration);
    const input = patterns.filter((p) => p.meta.side === "input");
    const output = patterns.filter((p) => p.meta.side === "output" && p.meta.id !== SYSTEM_PROMPT_PATTERN_ID);
    this.systemPrompt = patterns.find((p) => p.meta.id === SYSTEM_PROMPT_PATTERN_ID)?.meta;
    this.input = input.map((p) => p.meta);
    this.output = output.map((p) => p.meta);
    this.familyOfRow = Int32Array.from(input, (p) => families.get(p.meta.family) ?? -1);
    this.contrastRows = contrast.length;
    this.hasHead = calibration.head.weights.length === dims && calibration.window.headWeight !== 0;
    const head = this.hasHead ? [Float32Array.from(calibration.head.weights)] : [];
    const lastLayerWeights = calibration.head.lastLayerWeights ?? [];
    this.lastLayerHead = this.hasHead && lastLayerWeights.length === dims ? new VectorMatrix([Float32Array.from(lastLayerWeights)], dims) : undefined;
    this.inputMatrix = new VectorMatrix([...input.map((p) => p.vector), ...contrast, ...head], dims);
    this.outputMatrix = new VectorMatrix(output.map((p) => p.vector), dims);
  }
}

/**
 * A workspace's view: which built-ins are on, with the workspace's own action and threshold where
 * it set them, and its own patterns (one small matrix per side).
 */
export class WorkspacePatterns {
  /** The built-ins as this workspace sees them, in the rows of BuiltinIndex.input / output. */
  readonly builtinInput: PatternMeta[];
  readonly builtinOutput: PatternMeta[];
  readonly inputEnabled: Uint8Array;
  readonly outputEnabled: Uint8Array;
  /** The system-prompt check as this workspace sees it; undefined when off. */
  readonly systemPrompt: PatternMeta | undefined;
  readonly customInput: PatternMeta[];
  readonly customOutput: PatternMeta[];
  readonly customInputMatrix: VectorMatrix;
  readonly customOutputMatrix: VectorMatrix;
  readonly #customInputVectors: Float32Array[];
  #inputFingerprint: string | undefined;

  constructor(
    readonly builtins: BuiltinIndex,
    /** The workspace's version of a built-in pattern (its own action or threshold, if any), or undefined when it is off. */
    builtinFor: (meta: PatternMeta) => PatternMeta | undefined,
    custom: IndexedPattern[],
  ) {
    const input = builtins.input.map(builtinFor);
    const output = builtins.output.map(builtinFor);
    this.builtinInput = input.map((meta, r) => meta ?? builtins.input[r]!);
    this.builtinOutput = output.map((meta, r) => meta ?? builtins.output[r]!);
    this.inputEnabled = Uint8Array.from(input, (meta) => (meta ? 1 : 0));
    this.outputEnabled = Uint8Array.from(output, (meta) => (meta ? 1 : 0));
    this.systemPrompt = builtins.systemPrompt && builtinFor(builtins.systemPrompt);
    const customIn = custom.filter((p) => p.meta.side === "input");
    const customOut = custom.filter((p) => p.meta.side === "output");
    this.customInput = customIn.map((p) => p.meta);
    this.customOutput = customOut.map((p) => p.meta);
    this.customInputMatrix = new VectorMatrix(customIn.map((p) => p.vector), builtins.dims);
    this.customOutputMatrix = new VectorMatrix(customOut.map((p) => p.vector), builtins.dims);
    this.#customInputVectors = customIn.map((p) => p.vector);
  }

  /**
   * What the workspace chose for the input side (the built-ins it has on, with its own action and
   * threshold, and its enabled custom patterns with their vectors), as a digest: document chunks
   * remember the one they were scanned with, and are scanned again when it changes.
   */
  get inputFingerprint(): string {
    if (this.#inputFingerprint) return this.#inputFingerprint;
    const describe = (meta: PatternMeta) => `${meta.id}\t${meta.family}\t${meta.action}\t${meta.threshold}`;
    const vectorDigest = (vector: Float32Array) => createHash("sha256").update(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)).digest("base64url");
    const lines = [
      ...this.builtinInput.filter((_, row) => this.inputEnabled[row]).map(describe),
      ...this.customInput.map((meta, i) => `${describe(meta)}\t${vectorDigest(this.#customInputVectors[i]!)}`),
    ];
    // Sorted: the database returns rows in no set order, and every instance of a fleet must agree.
    return (this.#inputFingerprint = createHash("sha256").update(lines.sort().join("\n")).digest("base64url").slice(0, 22));
  }

  /** Every built-in on at its defaults, no custom patterns: what the evaluation and a fresh workspace use. */
  static defaults(builtins: BuiltinIndex): WorkspacePatterns {
    return new WorkspacePatterns(builtins, (meta) => meta, []);
  }
}
