/**
 * Pattern vectors as one row-major Float32Array, so scoring a batch of windows against every
 * pattern is one matrix product (windows × patterns) rather than a query per pattern. With a
 * few hundred 384-d rows this takes well under a millisecond for a handful of windows.
 */
export class VectorMatrix {
  readonly rows: number;
  readonly dims: number;
  readonly #data: Float32Array;

  constructor(vectors: Float32Array[], dims: number) {
    this.rows = vectors.length;
    this.dims = dims;
    this.#data = new Float32Array(this.rows * dims);
    vectors.forEach((vector, row) => {
      if (vector.length !== dims) throw new Error(`pattern vector has ${vector.length} dimensions, expected ${dims}`);
      this.#data.set(vector, row * dims);
    });
  }

  /** result[w * rows + r] = dot(vectors[w], row r): cosine similarity, as every vector is L2-normalised. */
  product(vectors: Float32Array[]): Float32Array {
    const { rows, dims } = this;
    const data = this.#data;
    const result = new Float32Array(vectors.length * rows);
    vectors.forEach((vector, w) => {
      for (let r = 0; r < rows; r++) {
        const offset = r * dims;
        let a = 0;
        let b = 0;
        let c = 0;
        let d = 0;
        let i = 0;
        for (; i + 3 < dims; i += 4) {
          a += vector[i]! * data[offset + i]!;
          b += vector[i + 1]! * data[offset + i + 1]!;
          c += vector[i + 2]! * data[offset + i + 2]!;
          d += vector[i + 3]! * data[offset + i + 3]!;
        }
        for (; i < dims; i++) a += vector[i]! * data[offset + i]!;
        result[w * rows + r] = a + b + c + d;
      }
    });
    return result;
  }
}
