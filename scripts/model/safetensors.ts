/** Reads a .safetensors file (8-byte little-endian header length, JSON header, raw tensor bytes). */

export type FloatTensor = { shape: number[]; data: Float32Array };

type HeaderEntry = { dtype: string; shape: number[]; data_offsets: [number, number] };

// All 65536 half-precision bit patterns decoded once: a table lookup per weight is the fastest exact conversion.
let halfTable: Float32Array | undefined;

function halfToFloatTable(): Float32Array {
  if (halfTable) return halfTable;
  halfTable = new Float32Array(65536);
  for (let bits = 0; bits < 65536; bits++) {
    const sign = bits & 0x8000 ? -1 : 1;
    const exponent = (bits >> 10) & 0x1f;
    const mantissa = bits & 0x3ff;
    if (exponent === 0) halfTable[bits] = sign * mantissa * 2 ** -24;
    else if (exponent === 31) halfTable[bits] = mantissa ? NaN : sign * Infinity;
    else halfTable[bits] = sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
  }
  return halfTable;
}

/** Decodes every floating-point tensor to fp32; integer tensors (e.g. position_ids) are skipped. */
export function readSafetensors(bytes: Uint8Array): Map<string, FloatTensor> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength))) as Record<string, HeaderEntry>;
  const dataStart = 8 + headerLength;
  const tensors = new Map<string, FloatTensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === "__metadata__") continue;
    const [begin, end] = entry.data_offsets;
    const raw = new Uint8Array(bytes.subarray(dataStart + begin, dataStart + end)); // a copy, aligned for typed-array views
    if (entry.dtype === "F16") {
      const table = halfToFloatTable();
      const halves = new Uint16Array(raw.buffer);
      const data = new Float32Array(halves.length);
      for (let i = 0; i < halves.length; i++) data[i] = table[halves[i]];
      tensors.set(name, { shape: entry.shape, data });
    } else if (entry.dtype === "F32") {
      tensors.set(name, { shape: entry.shape, data: new Float32Array(raw.buffer) });
    }
  }
  return tensors;
}
