/**
 * A deliberately naive float64 BertModel forward pass + mean pooling, read straight from the
 * safetensors weights, written from the Hugging Face architecture rather than from our ONNX graph,
 * to check the converter's graph against.
 */
import { readFileSync } from "node:fs";
import { readSafetensors } from "../../scripts/model/safetensors.ts";

type Rows = Float64Array[];

export function referenceEmbedder(safetensorsPath: string, config: { num_attention_heads: number; num_hidden_layers: number; layer_norm_eps: number }) {
  const tensors = readSafetensors(readFileSync(safetensorsPath));
  const w = (name: string) => tensors.get(name)!.data;

  const linear = (x: Rows, name: string): Rows => {
    const weight = w(`${name}.weight`);
    const bias = w(`${name}.bias`);
    const inDim = weight.length / bias.length;
    return x.map((row) => Float64Array.from(bias, (b, o) => {
      let sum = b;
      for (let i = 0; i < inDim; i++) sum += row[i] * weight[o * inDim + i];
      return sum;
    }));
  };
  const layerNorm = (x: Rows, name: string): Rows =>
    x.map((row) => {
      const mean = row.reduce((a, b) => a + b) / row.length;
      const variance = row.reduce((a, v) => a + (v - mean) ** 2, 0) / row.length;
      return row.map((v, i) => ((v - mean) / Math.sqrt(variance + config.layer_norm_eps)) * w(`${name}.weight`)[i] + w(`${name}.bias`)[i]);
    });
  const add = (a: Rows, b: Rows): Rows => a.map((row, i) => row.map((v, d) => v + b[i][d]));

  return (ids: number[]): Float64Array => {
    const hidden = w("embeddings.LayerNorm.weight").length;
    const headSize = hidden / config.num_attention_heads;
    let h: Rows = ids.map((id, position) =>
      Float64Array.from({ length: hidden }, (_, d) =>
        w("embeddings.word_embeddings.weight")[id * hidden + d] +
        w("embeddings.position_embeddings.weight")[position * hidden + d] +
        w("embeddings.token_type_embeddings.weight")[d],
      ),
    );
    h = layerNorm(h, "embeddings.LayerNorm");
    for (let layer = 0; layer < config.num_hidden_layers; layer++) {
      const p = `encoder.layer.${layer}`;
      const [q, k, v] = ["query", "key", "value"].map((m) => linear(h, `${p}.attention.self.${m}`));
      const context: Rows = h.map(() => new Float64Array(hidden));
      for (let head = 0; head < config.num_attention_heads; head++) {
        const o = head * headSize;
        for (let i = 0; i < ids.length; i++) {
          const scores = k.map((kj) => {
            let s = 0;
            for (let d = 0; d < headSize; d++) s += q[i][o + d] * kj[o + d];
            return s / Math.sqrt(headSize);
          });
          const max = Math.max(...scores);
          const exps = scores.map((s) => Math.exp(s - max));
          const total = exps.reduce((a, b) => a + b);
          exps.forEach((e, j) => {
            for (let d = 0; d < headSize; d++) context[i][o + d] += (e / total) * v[j][o + d];
          });
        }
      }
      const attended = layerNorm(add(linear(context, `${p}.attention.output.dense`), h), `${p}.attention.output.LayerNorm`);
      const intermediate = linear(attended, `${p}.intermediate.dense`).map((row) => row.map((x) => 0.5 * x * (1 + erf(x / Math.SQRT2))));
      h = layerNorm(add(linear(intermediate, `${p}.output.dense`), attended), `${p}.output.LayerNorm`);
    }
    const pooled = new Float64Array(hidden);
    for (const row of h) row.forEach((v, d) => (pooled[d] += v / h.length));
    const norm = Math.hypot(...pooled);
    return pooled.map((v) => v / norm);
  };
}

/** erf with |error| < 1.2e-7 (Numerical Recipes' erfc approximation). */
function erf(x: number): number {
  const t = 1 / (1 + 0.5 * Math.abs(x));
  const poly = -x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const y = 1 - t * Math.exp(poly);
  return x >= 0 ? y : -y;
}
