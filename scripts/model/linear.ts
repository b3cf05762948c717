/**
 * Dense layers (y = xW + b) emitted as ONNX ops, in fp32 or int8.
 *
 * Two int8 forms, both with int8 weights (one scale per output column) and activations quantised
 * at run time. The inference pool runs every text alone and unpadded, so a scale taken over the
 * whole input is one text's own, and no other text can change its vector.
 * - int8PerTextDense: one activation scale for the text, ONNX Runtime's fused kernels
 *   (DynamicQuantizeLinear + MatMulIntegerToFloat): 2 ops per layer. With it where it fits, a
 *   16-token MiniLM run costs 9–14% less than with int8PerTokenDense everywhere (23% less with it
 *   everywhere, which moved the vectors too far; docs/inference.md, *int8 layers*).
 * - int8PerTokenDense: one scale per token (row of x), 13 plain ops. Used where one scale for
 *   the whole text loses too much: the FFN's second layer reads GELU outputs, whose few large
 *   values would leave every other value a handful of int8 steps (measured: cosine to fp32 fell
 *   from 0.9976 to 0.9934, median; with per-token there, 0.9964).
 */
import { DataType, type GraphBuilder } from "./onnx-builder.ts";
import { quantizePerColumn } from "./quantize.ts";

/** weight is row-major [inDim, outDim] (already transposed from PyTorch's [out, in]). */
export type DenseWeights = { name: string; weight: Float32Array; bias: Float32Array; inDim: number; outDim: number };

export type DenseEmitter = (g: GraphBuilder, x: string, dense: DenseWeights) => string;

export const fp32Dense: DenseEmitter = (g, x, d) => {
  const w = g.float(`${d.name}.weight`, [d.inDim, d.outDim], d.weight);
  const b = g.float(`${d.name}.bias`, [d.outDim], d.bias);
  return g.op1("Add", [g.op1("MatMul", [x, w]), b]);
};

/** The int8 weights with their per-column scales, and the float bias, as initializers. */
function int8Weights(g: GraphBuilder, d: DenseWeights): { w: string; wScale: string; b: string } {
  const q = quantizePerColumn(d.weight, d.inDim, d.outDim);
  return {
    w: g.int8(`${d.name}.weight_int8`, [d.inDim, d.outDim], q.values),
    wScale: g.float(`${d.name}.weight_scale`, [d.outDim], q.scales),
    b: g.float(`${d.name}.bias`, [d.outDim], d.bias),
  };
}

export const int8PerTextDense: DenseEmitter = (g, x, d) => {
  const { w, wScale, b } = int8Weights(g, d);
  // uint8 with the zero point the text's own range gives; y = (xq − zp)·W·scale_x·scale_w + b
  const [xq, xScale, xZeroPoint] = g.op("DynamicQuantizeLinear", [x], {}, { outputs: 3 });
  return g.op("MatMulIntegerToFloat", [xq!, w, xScale!, wScale, xZeroPoint!, "", b], {}, { domain: "com.microsoft" })[0]!;
};

export const int8PerTokenDense: DenseEmitter = (g, x, d) => {
  const { w, wScale, b } = int8Weights(g, d);
  // scale per token = max|x| / 127 (floored so an all-zero row cannot divide by zero)
  const absMax = g.op1("ReduceMax", [g.op1("Abs", [x])], { axes: { ints: [-1] }, keepdims: { int: 1 } });
  const scale = g.op1("Div", [g.op1("Max", [absMax, g.floatConstant([1e-12])]), g.floatConstant([127])]);
  // uint8 with zero point 128: the u8 x s8 integer GEMM is the kernel ORT's WASM build accelerates
  const shifted = g.op1("Add", [g.op1("Round", [g.op1("Div", [x, scale])]), g.floatConstant([128])]);
  const xq = g.op1("Cast", [shifted], { to: { int: DataType.UINT8 } });
  const acc = g.op1("MatMulInteger", [xq, w, g.uint8Constant(128)]);
  const rescaled = g.op1("Mul", [g.op1("Mul", [g.op1("Cast", [acc], { to: { int: DataType.FLOAT } }), scale]), wScale]);
  return g.op1("Add", [rescaled, b]);
};
