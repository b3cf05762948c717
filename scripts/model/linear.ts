/**
 * Dense layers (y = xW + b) emitted as ONNX ops, in fp32 or int8.
 *
 * The int8 form quantises activations per token (one scale per row of x) instead of ONNX's
 * DynamicQuantizeLinear, whose single scale spans the whole batch: that would make a text's
 * vector depend on what else (and how much padding) shares its batch.
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

export const int8PerTokenDense: DenseEmitter = (g, x, d) => {
  const q = quantizePerColumn(d.weight, d.inDim, d.outDim);
  const w = g.int8(`${d.name}.weight_int8`, [d.inDim, d.outDim], q.values);
  const wScale = g.float(`${d.name}.weight_scale`, [d.outDim], q.scales);
  const b = g.float(`${d.name}.bias`, [d.outDim], d.bias);

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
