/** Symmetric int8 quantisation of weight matrices: one scale per output column or per row, zero point 0. */

export type QuantizedMatrix = { values: Int8Array; scales: Float32Array };

function toInt8(value: number, scale: number): number {
  return scale === 0 ? 0 : Math.max(-127, Math.min(127, Math.round(value / scale)));
}

/** matrix is row-major [rows, cols]; one scale per column (a MatMul weight [in, out] gets one per output). */
export function quantizePerColumn(matrix: Float32Array, rows: number, cols: number): QuantizedMatrix {
  const scales = new Float32Array(cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) scales[c] = Math.max(scales[c], Math.abs(matrix[r * cols + c]));
  }
  for (let c = 0; c < cols; c++) scales[c] /= 127;
  const values = new Int8Array(matrix.length);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) values[r * cols + c] = toInt8(matrix[r * cols + c], scales[c]);
  }
  return { values, scales };
}

/** matrix is row-major [rows, cols]; one scale per row (an embedding table gets one per token). */
export function quantizePerRow(matrix: Float32Array, rows: number, cols: number): QuantizedMatrix {
  const scales = new Float32Array(rows);
  const values = new Int8Array(matrix.length);
  for (let r = 0; r < rows; r++) {
    let max = 0;
    for (let c = 0; c < cols; c++) max = Math.max(max, Math.abs(matrix[r * cols + c]));
    scales[r] = max / 127;
    for (let c = 0; c < cols; c++) values[r * cols + c] = toInt8(matrix[r * cols + c], scales[r]);
  }
  return { values, scales };
}
