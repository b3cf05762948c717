/**
 * Sentence embeddings with all-MiniLM-L6-v2 (or a compatible BERT model) on ONNX Runtime WASM:
 * mean pooling over tokens, L2-normalised, input truncated to the model's 256-token limit, the
 * same recipe as sentence-transformers.
 */
import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { PreTrainedModel, PreTrainedTokenizer } from "@huggingface/transformers";
import { InferenceQueue } from "./inference-queue.ts";
import { EmbedderInputError, EmbedderLoadError } from "./errors.ts";
import { checkModelFolder, onnxFile } from "./model-files.ts";
import { loadRuntime, type WasmFiles } from "./runtime.ts";
import { meanPoolNormalized } from "./vectors.ts";

export type EmbedderOptions = {
  /** Local model folder (its name is the model's name); with allowRemote, may be a Hugging Face model id. */
  modelDir: string;
  /** Use onnx/model_quantized.onnx (int8) instead of onnx/model.onnx (fp32). */
  quantized: boolean;
  /** Explicit opt-in to let transformers.js download modelDir from the Hugging Face hub. */
  allowRemote?: boolean;
  /** Where the ONNX Runtime WASM files are; defaults to the installed onnxruntime-web package. */
  wasm?: WasmFiles;
  /** WASM threads (default 1). Process-wide: the first Embedder loaded sets it for all. */
  threads?: number;
};

// Generous: English averages ~5 characters per token; whitespace-heavy text falls back to a full pass.
const CHARS_PER_TOKEN_BOUND = 32;

// transformers.js resolves local models through the global env.localModelPath: load one at a time.
let loading: Promise<unknown> = Promise.resolve();

export class Embedder {
  readonly dimensions: number;
  readonly modelName: string;
  private readonly queue: InferenceQueue<number[], Float32Array>;
  private readonly prefix: number[];
  private readonly suffix: number[];
  private readonly maxTokens: number;

  private constructor(
    private readonly tokenizer: PreTrainedTokenizer,
    private readonly model: PreTrainedModel,
    private readonly Tensor: typeof import("@huggingface/transformers").Tensor,
    modelName: string,
  ) {
    const config = model.config as unknown as { hidden_size: number; max_position_embeddings: number };
    this.dimensions = config.hidden_size;
    this.modelName = modelName;
    // The tokenizer's template applied to empty text is exactly its special tokens: [CLS] [SEP].
    const [first, ...rest] = tokenizer.encode("");
    this.prefix = [first];
    this.suffix = rest;
    this.maxTokens = Math.min(tokenizer.model_max_length, config.max_position_embeddings);
    this.queue = new InferenceQueue((sequence) => this.runOne(sequence));
  }

  static async load(opts: EmbedderOptions): Promise<Embedder> {
    const result = loading.then(() => Embedder.loadNow(opts));
    loading = result.catch(() => undefined);
    return result;
  }

  private static async loadNow({ modelDir, quantized, allowRemote = false, wasm, threads }: EmbedderOptions): Promise<Embedder> {
    const remote = allowRemote && !existsSync(modelDir);
    if (!remote) checkModelFolder(modelDir, quantized);
    const transformers = await loadRuntime({ wasm, threads });
    const { env, AutoTokenizer, AutoModel } = transformers;
    const modelId = remote ? modelDir : basename(modelDir);
    if (!remote) env.localModelPath = dirname(modelDir);
    env.allowRemoteModels = remote;
    try {
      const tokenizer = await AutoTokenizer.from_pretrained(modelId, { local_files_only: !remote }).catch((error) => {
        throw new EmbedderLoadError(`cannot load tokenizer from ${modelDir}/tokenizer.json: ${(error as Error).message}`);
      });
      const model = await AutoModel.from_pretrained(modelId, {
        local_files_only: !remote,
        dtype: quantized ? "q8" : "fp32",
        device: "auto",
        session_options: { executionProviders: ["wasm"] },
      }).catch((error) => {
        throw new EmbedderLoadError(`cannot load ${modelDir}/${onnxFile(quantized)}: ${(error as Error).message}`);
      });
      return new Embedder(tokenizer, model, transformers.Tensor, basename(modelDir));
    } finally {
      env.allowRemoteModels = false;
    }
  }

  /** Wordpiece tokens in text, without [CLS]/[SEP] and without truncation. */
  countTokens(text: string): number {
    return this.tokenizer.encode(text, { add_special_tokens: false }).length;
  }

  async embed(text: string): Promise<Float32Array> {
    const [vector] = await this.embedMany([text]);
    return vector;
  }

  /**
   * Each text runs as its own unpadded inference. Batching buys no throughput on single-threaded
   * WASM (CPU time per text is the same), while padding costs real time on short texts (a
   * 17-token prompt padded to 32 took 27 ms instead of 18) and changes float summation order,
   * which int8 re-quantisation between layers can turn into a different rounding. Alone and
   * unpadded, a text's vector is the same whatever else is being embedded.
   */
  async embedMany(texts: string[]): Promise<Float32Array[]> {
    const sequences = texts.map((text) => this.toSequence(text));
    return Promise.all(sequences.map((sequence) => this.queue.submit(sequence)));
  }

  /** [CLS] + up to 254 content tokens + [SEP]: truncation keeps the closing [SEP], as sentence-transformers does. */
  private toSequence(text: string): number[] {
    const maxContent = this.maxTokens - this.prefix.length - this.suffix.length;
    const content = this.leadingTokens(text, maxContent);
    if (content.length === 0) throw new EmbedderInputError("cannot embed empty text (no tokens after normalisation)");
    return [...this.prefix, ...content.slice(0, maxContent), ...this.suffix];
  }

  /**
   * At least `needed` tokens from the start of text (or all of them), without tokenising a whole
   * long document (~1 s per MB): BERT tokenises word by word, so cutting at whitespace leaves the
   * tokens before the cut unchanged.
   */
  private leadingTokens(text: string, needed: number): number[] {
    const window = needed * CHARS_PER_TOKEN_BOUND;
    if (text.length > window) {
      const cut = text.slice(0, window).search(/\s\S*$/);
      const tokens = cut > 0 ? this.tokenizer.encode(text.slice(0, cut), { add_special_tokens: false }) : [];
      if (tokens.length >= needed) return tokens;
    }
    return this.tokenizer.encode(text, { add_special_tokens: false });
  }

  private async runOne(sequence: number[]): Promise<Float32Array> {
    const dims = [1, sequence.length];
    const { last_hidden_state } = await this.model({
      input_ids: new this.Tensor("int64", BigInt64Array.from(sequence, BigInt), dims),
      attention_mask: new this.Tensor("int64", new BigInt64Array(sequence.length).fill(1n), dims),
      token_type_ids: new this.Tensor("int64", new BigInt64Array(sequence.length), dims),
    });
    return meanPoolNormalized(last_hidden_state.data as Float32Array, sequence.length, this.dimensions, 0, sequence.length);
  }

}

export { cosine } from "./vectors.ts";
export { EmbedderInputError, EmbedderLoadError } from "./errors.ts";
