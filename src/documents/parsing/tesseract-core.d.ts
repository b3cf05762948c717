/** tesseract.js-core ships no types: its Emscripten factory, with the options Sieve passes. */
declare module "tesseract.js-core/tesseract-core-simd-lstm.js" {
  const createTesseractCore: (options: { wasmBinary: Uint8Array; TesseractProgress: (percent: number) => void; print: (text: string) => void; printErr: (text: string) => void }) => Promise<unknown>;
  export default createTesseractCore;
}
