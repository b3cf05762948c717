/**
 * OCR with Tesseract (tesseract.js-core, the WebAssembly build tesseract.js itself runs), driven
 * here in the calling thread — the document parser's thread, under its time and memory watchdog —
 * rather than through tesseract.js's createWorker, which would start a thread of its own that the
 * watchdog cannot stop and fetch its engine and language data from a CDN. The engine (LSTM-only,
 * SIMD build) and the language data are local files: in the compiled binary, embedded copies.
 *
 * One engine per thread, started on the first image (about 0.3 s) and kept for the next ones.
 */
import { existsSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import createTesseractCore from "tesseract.js-core/tesseract-core-simd-lstm.js";
import { assetPaths } from "../../runtime/assets.ts";
import { CorruptFileError, OcrUnavailableError } from "./errors.ts";

/** Where the engine and the language data are, and which languages to recognise. */
export type OcrFiles = {
  /** tesseract-core-simd-lstm.wasm */
  coreWasm: string;
  /** Folders holding `<language>.traineddata.gz` (or uncompressed), searched in order. */
  languageDirs: string[];
  /** Tesseract language codes, e.g. ["eng"] or ["eng", "deu"]. */
  languages: string[];
  /** Called as each page (image) starts to be recognised: the parser's thread reports it, and its watchdog gives the parse more time. */
  onPage?: () => void;
};

/** This build's engine; the language data of `--ocr-data-dir`, then the built-in English (@tesseract.js-data/eng, LSTM integer model). */
export function ocrFiles(config: { ocrLanguages: string; ocrDataDir: string } = { ocrLanguages: "eng", ocrDataDir: "" }): OcrFiles {
  const assets = assetPaths();
  return { coreWasm: assets.ocrCoreWasm, languageDirs: [...(config.ocrDataDir ? [config.ocrDataDir] : []), assets.ocrLanguageDir], languages: config.ocrLanguages.split("+") };
}

/** The configured languages whose data is in none of the folders (checked at start-up, so a typo does not wait for the first scan). */
export function missingOcrLanguages(files: OcrFiles): string[] {
  return files.languages.filter((language) => !files.languageDirs.some((dir) => [".traineddata.gz", ".traineddata"].some((suffix) => existsSync(`${dir}/${language}${suffix}`))));
}

/** A recognised word, in the image's pixels (origin top-left); `fontSize` is its line's height. */
export type OcrWord = { text: string; x: number; right: number; baseline: number; fontSize: number };
/** `confidence`: Tesseract's mean word confidence over the image, 0–1. */
export type OcrPage = { words: OcrWord[]; confidence: number };

/** An image Tesseract reads: PNG, JPEG, TIFF, BMP, or a PGM built from decoded pixels (grayImage). */
export type OcrImage = Uint8Array;

/** LSTM only: the only engine the data shipped (4.0.0_best_int) and the core built carry. */
const OEM_LSTM_ONLY = 1;
const INPUT_FILE = "/input";

type TesseractJson = {
  blocks: { paragraphs: { lines: { rowAttributes: { rowHeight: number }; baseline: { y0: number; y1: number }; words: { text: string; bbox: { x0: number; x1: number } }[] }[] }[] }[] | null;
};
type TessApi = {
  Init(dataPath: string, languages: string, oem: number): number;
  SetImageFile(exifOrientation: number, angle: number): number;
  Recognize(monitor: null): number;
  GetJSONText(): string;
  MeanTextConf(): number;
  Clear(): void;
};
type TessModule = { FS: { writeFile(path: string, data: Uint8Array): void; unlink(path: string): void }; TessBaseAPI: new () => TessApi };

/** Tesseract's and Leptonica's own messages ("Image file /input cannot be read!"): the error thrown says what went wrong. */
const quiet = () => {};

let engine: { key: string; module: TessModule; api: TessApi } | undefined;

async function startEngine(files: OcrFiles): Promise<{ module: TessModule; api: TessApi }> {
  const key = JSON.stringify([files.coreWasm, files.languageDirs, files.languages]);
  if (engine?.key === key) return engine;
  try {
    const module = (await createTesseractCore({ wasmBinary: readFileSync(files.coreWasm), TesseractProgress() {}, print: quiet, printErr: quiet })) as TessModule;
    for (const language of files.languages) module.FS.writeFile(`/${language}.traineddata`, languageData(language, files.languageDirs));
    const api = new module.TessBaseAPI();
    if (api.Init("/", files.languages.join("+"), OEM_LSTM_ONLY) !== 0) throw new Error(`Tesseract did not start with the languages ${files.languages.join("+")}`);
    engine = { key, module, api };
    return engine;
  } catch (error) {
    throw new OcrUnavailableError(`OCR is not available: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function languageData(language: string, dirs: string[]): Uint8Array {
  for (const dir of dirs) {
    for (const name of [`${language}.traineddata.gz`, `${language}.traineddata`]) {
      let bytes: Uint8Array;
      try {
        // Not path.join: it would fold a "/$bunfs/root/../x" path of the binary's embedded files into one that does not exist.
        bytes = readFileSync(`${dir}/${name}`);
      } catch {
        continue;
      }
      return name.endsWith(".gz") ? gunzipSync(bytes) : bytes;
    }
  }
  throw new Error(`no OCR data for the language ${language} (${language}.traineddata.gz) in ${dirs.join(", ")}`);
}

/** The words Tesseract reads in an image. Throws CorruptFileError when the image cannot be decoded. */
export async function recognizeImage(image: OcrImage, files: OcrFiles): Promise<OcrPage> {
  files.onPage?.(); // before the engine starts: its start (seconds on a busy host, in a new thread) is OCR's cost too
  const { module, api } = await startEngine(files);
  module.FS.writeFile(INPUT_FILE, image);
  try {
    if (api.SetImageFile(1, 0) === 1) throw new CorruptFileError("the image cannot be decoded (PNG, JPEG, and TIFF uncompressed or with LZW, PackBits or CCITT compression are read)");
    api.Recognize(null);
    const { blocks } = JSON.parse(api.GetJSONText()) as TesseractJson;
    const words: OcrWord[] = [];
    for (const line of (blocks ?? []).flatMap((block) => block.paragraphs.flatMap((paragraph) => paragraph.lines))) {
      const baseline = Math.max(line.baseline.y0, line.baseline.y1);
      for (const word of line.words) {
        if (word.text.trim()) words.push({ text: word.text, x: word.bbox.x0, right: word.bbox.x1, baseline, fontSize: line.rowAttributes.rowHeight });
      }
    }
    return { words, confidence: words.length > 0 ? api.MeanTextConf() / 100 : 0 };
  } finally {
    api.Clear();
    module.FS.unlink(INPUT_FILE);
  }
}

/** Decoded pixels (1 gray, 3 RGB or 4 RGBA channels, 8 bits each) → an 8-bit grayscale PGM Tesseract reads. */
export function grayImage(pixels: Uint8Array | Uint8ClampedArray, width: number, height: number, channels: 1 | 3 | 4): OcrImage {
  const header = new TextEncoder().encode(`P5\n${width} ${height}\n255\n`);
  const image = new Uint8Array(header.length + width * height);
  image.set(header);
  if (channels === 1) image.set(pixels.subarray(0, width * height), header.length);
  else {
    for (let pixel = 0, at = 0; pixel < width * height; pixel++, at += channels) {
      // ITU-R BT.601 luma, in integers.
      image[header.length + pixel] = (pixels[at]! * 299 + pixels[at + 1]! * 587 + pixels[at + 2]! * 114) / 1000;
    }
  }
  return image;
}
