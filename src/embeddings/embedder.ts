/**
 * Sentence embeddings with all-MiniLM-L6-v2 (or a compatible BERT model) on ONNX Runtime WASM:
 * mean pooling over tokens, L2-normalised, input truncated to the model's 256-token limit, the
 * same recipe as sentence-transformers.
 */
import { existsSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { PreTrainedModel, PreTrainedTokenizer } from "@huggingface/transformers";
import { BatchQueue } from "./batch-queue.ts";
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

// Large enough to amortise per-run overhead, small enough that attention scratch memory stays modest.
const MAX_BATCH = 32;

/**
 * Every sequence is padded to a multiple of this, alone or batched, and only sequences of equal
 * padded length share a batch. Padding itself is masked out, but its length changes float
 * summation order by an ulp, and int8 re-quantisation between layers can turn that ulp into a
 * different rounding (~1e-3 in the output): same padded length means bit-identical vectors.
 */
const PAD_MULTIPLE = 16;

// Generous: English averages ~5 characters per token; whitespace-heavy text falls back to a full pass.
const CHARS_PER_TOKEN_BOUND = 32;

// transformers.js resolves local models through the global env.localModelPath: load one at a time.
let loading: Promise<unknown> = Promise.resolve();

export class Embedder {
  readonly dimensions: number;
  readonly modelName: string;
  private readonly queue: BatchQueue<number[], Float32Array>;
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
    this.queue = new BatchQueue((batch) => this.runBatch(batch), (sequence) => this.paddedLength(sequence), MAX_BATCH);
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

  async embedMany(texts: string[]): Promise<Float32Array[]> {
    const sequences = texts.map((text) => this.toSequence(text));
    // Longest first, so texts of one padded length sit together and fill batches.
    const order = sequences.map((_, i) => i).sort((a, b) => sequences[b].length - sequences[a].length);
    const vectors = await this.queue.submit(order.map((i) => sequences[i]));
    const result = new Array<Float32Array>(texts.length);
    order.forEach((original, sortedIndex) => (result[original] = vectors[sortedIndex]));
    return result;
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

  private paddedLength(sequence: number[]): number {
    return Math.min(this.maxTokens, Math.ceil(sequence.length / PAD_MULTIPLE) * PAD_MULTIPLE);
  }

  private async runBatch(sequences: number[][]): Promise<Float32Array[]> {
    const batch = sequences.length;
    const width = this.paddedLength(sequences[0]); // the queue batches equal padded lengths only
    const ids = new BigInt64Array(batch * width);
    const mask = new BigInt64Array(batch * width);
    sequences.forEach((sequence, row) => {
      sequence.forEach((id, t) => {
        ids[row * width + t] = BigInt(id);
        mask[row * width + t] = 1n;
      });
    });
    const dims = [batch, width];
    const { last_hidden_state } = await this.model({
      input_ids: new this.Tensor("int64", ids, dims),
      attention_mask: new this.Tensor("int64", mask, dims),
      token_type_ids: new this.Tensor("int64", new BigInt64Array(batch * width), dims),
    });
    const hidden = last_hidden_state.data as Float32Array;
    return sequences.map((sequence, row) => meanPoolNormalized(hidden, width, this.dimensions, row, sequence.length));
  }
}

export { cosine } from "./vectors.ts";
export { EmbedderInputError, EmbedderLoadError } from "./errors.ts";
