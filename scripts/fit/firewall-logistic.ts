/**
 * Weighted L2-regularised logistic regression by Newton's method (IRLS): exact and
 * deterministic for the few features of the calibration and the 384 of the embedding head.
 */
export type LogisticFit = { weights: number[]; bias: number };

export type LogisticOptions = {
  sampleWeights?: number[];
  /** Penalty on the weights (not the bias), relative to the mean weighted loss. */
  l2?: number;
  iterations?: number;
  /** Keep every weight ≥ 0 (projected Newton), so the score stays increasing in each feature. */
  nonNegative?: boolean;
};

export function fitLogistic(x: number[][], y: boolean[], options: LogisticOptions = {}): LogisticFit {
  const n = x.length;
  const d = x[0]!.length;
  const width = d + 1; // last column = bias
  const l2 = options.l2 ?? 1e-3;
  const sampleWeights = options.sampleWeights ?? new Array<number>(n).fill(1);
  const totalWeight = sampleWeights.reduce((a, b) => a + b, 0);
  const rows = x.map((row) => Float64Array.from([...row, 1]));
  let beta = new Float64Array(width);
  for (let iteration = 0; iteration < (options.iterations ?? 30); iteration++) {
    const gradient = new Float64Array(width);
    const hessian = new Float64Array(width * width);
    for (let i = 0; i < n; i++) {
      const row = rows[i]!;
      let z = 0;
      for (let j = 0; j < width; j++) z += row[j]! * beta[j]!;
      const p = 1 / (1 + Math.exp(-z));
      const w = sampleWeights[i]! / totalWeight;
      const residual = w * ((y[i] ? 1 : 0) - p);
      const curvature = w * Math.max(p * (1 - p), 1e-9);
      for (let j = 0; j < width; j++) {
        const rj = row[j]!;
        if (rj === 0) continue;
        gradient[j] += residual * rj;
        const scaled = curvature * rj;
        const base = j * width;
        for (let k = j; k < width; k++) hessian[base + k] += scaled * row[k]!;
      }
    }
    for (let j = 0; j < width; j++) for (let k = 0; k < j; k++) hessian[j * width + k] = hessian[k * width + j]!;
    for (let j = 0; j < d; j++) {
      gradient[j] -= l2 * beta[j]!;
      hessian[j * width + j] += l2;
    }
    hessian[d * width + d] += 1e-9;
    const step = solve(hessian, gradient, width);
    let largest = 0;
    for (let j = 0; j < width; j++) {
      beta[j] += step[j]!;
      if (options.nonNegative && j < d && beta[j]! < 0) beta[j] = 0;
      largest = Math.max(largest, Math.abs(step[j]!));
    }
    if (largest < 1e-5) break;
  }
  return { weights: Array.from(beta.subarray(0, d)), bias: beta[d]! };
}

export function logitOf(fit: LogisticFit, row: ArrayLike<number>): number {
  let z = fit.bias;
  for (let j = 0; j < fit.weights.length; j++) z += fit.weights[j]! * row[j]!;
  return z;
}

/** Gaussian elimination with partial pivoting on a dense row-major matrix. */
function solve(matrix: Float64Array, vector: Float64Array, n: number): Float64Array {
  const a = new Float64Array(n * (n + 1));
  for (let i = 0; i < n; i++) {
    a.set(matrix.subarray(i * n, i * n + n), i * (n + 1));
    a[i * (n + 1) + n] = vector[i]!;
  }
  const w = n + 1;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let row = col + 1; row < n; row++) if (Math.abs(a[row * w + col]!) > Math.abs(a[pivot * w + col]!)) pivot = row;
    if (pivot !== col) {
      for (let k = 0; k < w; k++) {
        const t = a[col * w + k]!;
        a[col * w + k] = a[pivot * w + k]!;
        a[pivot * w + k] = t;
      }
    }
    const p = a[col * w + col]!;
    if (Math.abs(p) < 1e-15) continue;
    for (let row = 0; row < n; row++) {
      if (row === col) continue;
      const factor = a[row * w + col]! / p;
      if (factor === 0) continue;
      for (let k = col; k < w; k++) a[row * w + k] -= factor * a[col * w + k]!;
    }
  }
  const result = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const p = a[i * w + i]!;
    result[i] = Math.abs(p) < 1e-15 ? 0 : a[i * w + n]! / p;
  }
  return result;
}
