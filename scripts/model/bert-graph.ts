/**
 * Builds a BERT encoder as an ONNX graph: inputs input_ids, attention_mask, token_type_ids
 * (int64 [batch, sequence]), output last_hidden_state (float [batch, sequence, hidden]).
 * Mirrors Hugging Face's BertModel forward pass without the pooler (sentence-transformers
 * mean-pools the last hidden state instead). A model deeper than FIREWALL_LAYER also outputs
 * mean_hidden_state_<FIREWALL_LAYER> [batch, hidden]: the hidden state after that layer averaged
 * over all positions (the inference pool runs every text unpadded, so that is the mean pooling).
 * The firewall compares texts in that space (src/firewall/encoder.ts); the same run computes it
 * at no extra cost, and averaging in the graph keeps the output 384 floats.
 */
import { DataType, GraphBuilder, type ValueInfo } from "./onnx-builder.ts";
import type { DenseEmitter, DenseWeights } from "./linear.ts";
import type { FloatTensor } from "./safetensors.ts";
import { quantizePerRow } from "./quantize.ts";

export type BertConfig = {
  hidden_size: number;
  num_attention_heads: number;
  num_hidden_layers: number;
  layer_norm_eps: number;
  hidden_act: string;
};

export type BertPrecision = {
  /** Dense layers reading LayerNorm or attention outputs: Q/K/V, attention output, the FFN's first. */
  dense: DenseEmitter;
  /** The FFN's second dense layer, which reads GELU outputs (see linear.ts). */
  geluOutputDense: DenseEmitter;
  /** Store the word-embedding table as int8 rows (it is ~2/3 of the model's bytes). */
  int8WordEmbeddings: boolean;
};

/** com.microsoft: ONNX Runtime's contrib ops (MatMulIntegerToFloat), in both its native and WASM builds. */
const OPSETS = { "": 17, "com.microsoft": 1 };
/** Layers after which the firewall's hidden state is taken (measured in docs/research/firewall-experiments.md: 4 of MiniLM's 6). */
const FIREWALL_LAYER = 4;
// Added to masked-out attention scores; exp() of it underflows to exactly 0 in float32.
const MASKED_SCORE = -10000;

export function buildBertOnnx(config: BertConfig, tensors: Map<string, FloatTensor>, precision: BertPrecision): Uint8Array {
  if (config.hidden_act !== "gelu") throw new Error(`unsupported hidden_act "${config.hidden_act}" (only "gelu")`);
  const g = new GraphBuilder();
  const tensor = (name: string): FloatTensor => {
    const t = tensors.get(name);
    if (!t) throw new Error(`weights are missing tensor "${name}"`);
    return t;
  };
  const hidden = config.hidden_size;
  const eps = config.layer_norm_eps;

  const initializer = (name: string) => g.float(name, tensor(name).shape, tensor(name).data);
  const layerNorm = (x: string, prefix: string) =>
    g.op1("LayerNormalization", [x, initializer(`${prefix}.weight`), initializer(`${prefix}.bias`)], {
      axis: { int: -1 },
      epsilon: { float: eps },
    });

  // Embeddings: word + position + token type, then LayerNorm.
  const words = wordEmbeddings(g, tensor("embeddings.word_embeddings.weight"), hidden, precision.int8WordEmbeddings);
  const seqLen = g.op1("Slice", [g.op1("Shape", ["input_ids"]), g.int64Constant([1]), g.int64Constant([2])]);
  const positions = g.op1("Slice", [initializer("embeddings.position_embeddings.weight"), g.int64Constant([0]), seqLen, g.int64Constant([0])]);
  const types = g.op1("Gather", [initializer("embeddings.token_type_embeddings.weight"), "token_type_ids"]);
  let h = layerNorm(g.op1("Add", [g.op1("Add", [words, types]), positions]), "embeddings.LayerNorm");

  // Additive attention mask [batch, 1, 1, sequence]: 0 where attended, MASKED_SCORE on padding.
  const maskFloat = g.op1("Cast", ["attention_mask"], { to: { int: DataType.FLOAT } });
  const maskBias = g.op1("Mul", [g.op1("Sub", [g.floatConstant([1]), maskFloat]), g.floatConstant([MASKED_SCORE])]);
  const attentionBias = g.op1("Unsqueeze", [maskBias, g.int64Constant([1, 2])]);

  const outputs: ValueInfo[] = [];
  for (let layer = 0; layer < config.num_hidden_layers; layer++) {
    if (layer === FIREWALL_LAYER) {
      const [early] = g.op("ReduceMean", [h], { axes: { ints: [1] }, keepdims: { int: 0 } }, { outputs: [`mean_hidden_state_${FIREWALL_LAYER}`] });
      outputs.push({ name: early!, elemType: DataType.FLOAT, dims: ["batch_size", hidden] });
    }
    const p = `encoder.layer.${layer}`;
    const denseLayer = (x: string, name: string, emit = precision.dense) => emit(g, x, dense(`${p}.${name}`, tensor));
    const attention = selfAttention(g, h, p, config, tensor, precision.dense, attentionBias);
    const attended = layerNorm(g.op1("Add", [denseLayer(attention, "attention.output.dense"), h]), `${p}.attention.output.LayerNorm`);
    const intermediate = gelu(g, denseLayer(attended, "intermediate.dense"));
    h = layerNorm(g.op1("Add", [denseLayer(intermediate, "output.dense", precision.geluOutputDense), attended]), `${p}.output.LayerNorm`);
  }
  const [output] = g.op("Identity", [h], {}, { outputs: ["last_hidden_state"] });
  // last_hidden_state first: what loaders without a preference pick.
  outputs.unshift({ name: output!, elemType: DataType.FLOAT, dims: ["batch_size", "sequence_length", hidden] });

  const tokens = (name: string) => ({ name, elemType: DataType.INT64, dims: ["batch_size", "sequence_length"] });
  return g.toModel(
    [tokens("input_ids"), tokens("attention_mask"), tokens("token_type_ids")],
    outputs,
    OPSETS,
    "sieve-convert-model",
  );
}

function wordEmbeddings(g: GraphBuilder, table: FloatTensor, hidden: number, int8: boolean): string {
  const [vocab] = table.shape;
  if (!int8) return g.op1("Gather", [g.float("embeddings.word_embeddings.weight", [vocab, hidden], table.data), "input_ids"]);
  const q = quantizePerRow(table.data, vocab, hidden);
  const rowsInt8 = g.op1("Gather", [g.int8("embeddings.word_embeddings.weight_int8", [vocab, hidden], q.values), "input_ids"]);
  const scales = g.op1("Gather", [g.float("embeddings.word_embeddings.row_scale", [vocab, 1], q.scales), "input_ids"]);
  return g.op1("Mul", [g.op1("Cast", [rowsInt8], { to: { int: DataType.FLOAT } }), scales]);
}

/** Q, K and V share one fused matmul; 1/sqrt(head size) is folded into the query weights. */
function selfAttention(
  g: GraphBuilder,
  h: string,
  p: string,
  config: BertConfig,
  tensor: (name: string) => FloatTensor,
  denseOp: DenseEmitter,
  attentionBias: string,
): string {
  const hidden = config.hidden_size;
  const heads = config.num_attention_heads;
  const headSize = hidden / heads;
  const q = dense(`${p}.attention.self.query`, tensor, 1 / Math.sqrt(headSize));
  const k = dense(`${p}.attention.self.key`, tensor);
  const v = dense(`${p}.attention.self.value`, tensor);
  const qkv = denseOp(g, h, concatColumns(`${p}.attention.self.qkv`, [q, k, v]));
  const [qh, kh, vh] = g.op("Split", [qkv, g.int64Constant([hidden, hidden, hidden])], { axis: { int: -1 } }, { outputs: 3 });
  const splitHeads = (x: string, perm: number[]) =>
    g.op1("Transpose", [g.op1("Reshape", [x, g.int64Constant([0, 0, heads, headSize])])], { perm: { ints: perm } });
  const scores = g.op1("MatMul", [splitHeads(qh, [0, 2, 1, 3]), splitHeads(kh, [0, 2, 3, 1])]);
  const probs = g.op1("Softmax", [g.op1("Add", [scores, attentionBias])], { axis: { int: -1 } });
  const context = g.op1("Transpose", [g.op1("MatMul", [probs, splitHeads(vh, [0, 2, 1, 3])])], { perm: { ints: [0, 2, 1, 3] } });
  return g.op1("Reshape", [context, g.int64Constant([0, 0, hidden])]);
}

/** Exact (erf) GELU, as BERT's "gelu": x * 0.5 * (1 + erf(x / sqrt 2)). */
function gelu(g: GraphBuilder, x: string): string {
  const erf = g.op1("Erf", [g.op1("Div", [x, g.floatConstant([Math.SQRT2])])]);
  return g.op1("Mul", [g.op1("Mul", [x, g.op1("Add", [erf, g.floatConstant([1])])]), g.floatConstant([0.5])]);
}

/** PyTorch Linear weights are [out, in]; MatMul wants [in, out]. */
function dense(prefix: string, tensor: (name: string) => FloatTensor, multiplier = 1): DenseWeights {
  const weight = tensor(`${prefix}.weight`);
  const [outDim, inDim] = weight.shape;
  const transposed = new Float32Array(inDim * outDim);
  for (let o = 0; o < outDim; o++) {
    for (let i = 0; i < inDim; i++) transposed[i * outDim + o] = weight.data[o * inDim + i] * multiplier;
  }
  const bias = tensor(`${prefix}.bias`).data.map((b) => b * multiplier);
  return { name: prefix, weight: transposed, bias, inDim, outDim };
}

function concatColumns(name: string, parts: DenseWeights[]): DenseWeights {
  const inDim = parts[0].inDim;
  const outDim = parts.reduce((sum, d) => sum + d.outDim, 0);
  const weight = new Float32Array(inDim * outDim);
  for (let i = 0; i < inDim; i++) {
    let offset = 0;
    for (const d of parts) {
      weight.set(d.weight.subarray(i * d.outDim, (i + 1) * d.outDim), i * outDim + offset);
      offset += d.outDim;
    }
  }
  const bias = new Float32Array(outDim);
  let offset = 0;
  for (const d of parts) {
    bias.set(d.bias, offset);
    offset += d.outDim;
  }
  return { name, weight, bias, inDim, outDim };
}
