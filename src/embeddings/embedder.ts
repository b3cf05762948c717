/**
 * Sentence embeddings with all-MiniLM-L6-v2 (or a compatible BERT model): mean pooling over
 * tokens, L2-normalised, input truncated to the model's 256-token limit, the same recipe as
 * sentence-transformers. Tokenising happens here, on the caller's thread (a short prompt takes
 * well under a millisecond); the model itself runs in the inference pool's worker threads.
 * Embedders come from InferencePool.loadModel.
 */
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";
import type { PoolInfo } from "../inference/pool.ts";
import type { Priority } from "../inference/priority-queue.ts";
import { EmbedderInputError, EmbedderLoadError } from "./errors.ts";
import { Readability } from "./readability.ts";

export type EmbedOptions = {
  /** request (default): a proxied request or API call waits for it; bulk: document chunks, served after every request-path text. */
  priority?: Priority;
};

/** What the pool gives an embedder: its model's output size and extra views, the runtime, and a way to run one sequence. */
export type EmbedderRuntime = {
  dimensions: number;
  /** The model's extra pooled outputs (e.g. mean_hidden_state_4), computed by every run. */
  views: string[];
  runtime: PoolInfo;
  /** The main vector, then one per view. */
  run: (ids: Int32Array, priority: Priority) => Promise<Float32Array[]>;
};

/** A model folder's tokenizer and the limits read from its config. */
export type ModelText = { modelName: string; tokenizer: Tokenizer; maxTokens: number; hiddenSize: number; readability: Readability };

// Generous: English averages ~5 characters per token; whitespace-heavy text falls back to a full pass.
const CHARS_PER_TOKEN_BOUND = 32;

export class Embedder {
  readonly dimensions: number;
  readonly modelName: string;
  /** Which ONNX Runtime computes the vectors and on how many threads (for /readyz and the log). */
  readonly runtime: PoolInfo;
  /** Extra vectors each run also returns (embedManyViews), e.g. the firewall's mean_hidden_state_4. */
  readonly views: readonly string[];
  /** Which characters and whole words the tokenizer has pieces for (other characters become [UNK]). */
  readonly readability: Readability;
  readonly #tokenizer: Tokenizer;
  readonly #run: EmbedderRuntime["run"];
  readonly #prefix: number[];
  readonly #suffix: number[];
  readonly #maxTokens: number;

  constructor(text: ModelText, { dimensions, views, runtime, run }: EmbedderRuntime) {
    if (dimensions !== text.hiddenSize) throw new EmbedderLoadError(`${text.modelName}: the ONNX model outputs ${dimensions} dimensions, config.json says ${text.hiddenSize}`);
    this.dimensions = dimensions;
    this.modelName = text.modelName;
    this.runtime = runtime;
    this.views = views;
    this.readability = text.readability;
    this.#tokenizer = text.tokenizer;
    this.#run = run;
    this.#maxTokens = text.maxTokens;
    // The tokenizer's template applied to empty text is exactly its special tokens: [CLS] [SEP].
    const [first, ...rest] = text.tokenizer.encode("").ids;
    this.#prefix = [first!];
    this.#suffix = rest;
  }

  /** Reads a model folder's tokenizer and limits (the folder was checked by checkModelFolder). */
  static async tokenizerFor(modelDir: string): Promise<ModelText> {
    const json = (file: string) => JSON.parse(readFileSync(join(modelDir, file), "utf8"));
    const config = json("config.json") as { hidden_size: number; max_position_embeddings: number };
    const tokenizerConfig = json("tokenizer_config.json") as { model_max_length?: number };
    const tokenizerJson = json("tokenizer.json");
    let tokenizer: Tokenizer;
    try {
      tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
    } catch (error) {
      throw new EmbedderLoadError(`cannot load tokenizer from ${join(modelDir, "tokenizer.json")}: ${(error as Error).message}`);
    }
    const maxTokens = Math.min(tokenizerConfig.model_max_length ?? Infinity, config.max_position_embeddings);
    return { modelName: basename(modelDir), tokenizer, maxTokens, hiddenSize: config.hidden_size, readability: Readability.ofTokenizer(tokenizerJson) };
  }

  /** Wordpiece tokens in text, without [CLS]/[SEP] and without truncation. */
  countTokens(text: string): number {
    return this.#encode(text).length;
  }

  async embed(text: string, options?: EmbedOptions): Promise<Float32Array> {
    const [vector] = await this.embedMany([text], options);
    return vector!;
  }

  /**
   * Each text runs as its own unpadded inference. Padding costs real time on short texts and
   * changes float summation order, which int8 re-quantisation between layers (its scale is taken
   * over the whole batch) can turn into a different rounding. Alone and unpadded, a text's vector
   * is the same whatever else is being embedded; the pool's threads give the parallelism.
   */
  async embedMany(texts: string[], options?: EmbedOptions): Promise<Float32Array[]> {
    return (await this.embedManyViews(texts, options)).map(([main]) => main!);
  }

  /** Where the named view sits among a run's vectors (embedManyViews): 0, the main vector, for undefined or a view this model lacks. */
  viewIndex(view: string | undefined): number {
    return view === undefined ? 0 : 1 + this.views.indexOf(view);
  }

  /** Per text: the main vector, then one per view (`views`), all from the same run. */
  async embedManyViews(texts: string[], { priority = "request" }: EmbedOptions = {}): Promise<Float32Array[][]> {
    if (priority === "request") {
      const sequences = texts.map((text) => this.#toSequence(text));
      return Promise.all(sequences.map((sequence) => this.#run(sequence, priority)));
    }
    // Bulk (document chunks): tokenising a batch of 256-token chunks at once held the event loop
    // for ~4 ms; one text per turn instead, each submitted as soon as it is tokenised.
    const runs: Promise<Float32Array[]>[] = [];
    try {
      for (const [i, text] of texts.entries()) {
        if (i > 0) await new Promise((resolve) => setImmediate(resolve));
        runs.push(this.#run(this.#toSequence(text), priority));
      }
    } catch (error) {
      for (const run of runs) run.catch(() => {}); // abandoned with the batch
      throw error;
    }
    return Promise.all(runs);
  }

  /** [CLS] + up to 254 content tokens + [SEP]: truncation keeps the closing [SEP], as sentence-transformers does. */
  #toSequence(text: string): Int32Array {
    const maxContent = this.#maxTokens - this.#prefix.length - this.#suffix.length;
    const content = this.#leadingTokens(text, maxContent);
    if (content.length === 0) throw new EmbedderInputError("cannot embed empty text (no tokens after normalisation)");
    return Int32Array.from([...this.#prefix, ...content.slice(0, maxContent), ...this.#suffix]);
  }

  /**
   * At least `needed` tokens from the start of text (or all of them), without tokenising a whole
   * long document (~1 s per MB): BERT tokenises word by word, so cutting at whitespace leaves the
   * tokens before the cut unchanged.
   */
  #leadingTokens(text: string, needed: number): number[] {
    const window = needed * CHARS_PER_TOKEN_BOUND;
    if (text.length > window) {
      const cut = text.slice(0, window).search(/\s\S*$/);
      const tokens = cut > 0 ? this.#encode(text.slice(0, cut)) : [];
      if (tokens.length >= needed) return tokens;
    }
    return this.#encode(text);
  }

  #encode(text: string): number[] {
    return this.#tokenizer.encode(text, { add_special_tokens: false }).ids;
  }
}

export { cosine } from "./vectors.ts";
export { EmbedderInputError, EmbedderLoadError } from "./errors.ts";
