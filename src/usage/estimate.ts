import type { Usage } from "../proxy/dialects/dialect";

/**
 * Token counts for answers whose provider gave none, with OpenAI's own tokenizers (gpt-tokenizer):
 * exact encodings for OpenAI models (cl100k_base for GPT-3.5 and GPT-4, o200k_base for GPT-4o and
 * later), and o200k_base as an approximation for every other model family. Every such count is
 * marked estimated in the evidence. The encodings load on first use (about a second and ~60 MB
 * each), so a server whose providers report usage never loads them.
 */
type Encoding = { countTokens(text: string): number };

const CL100K_MODELS = /^(gpt-3\.5|gpt-4(?!o|\.|-?5)|text-embedding-(ada|3))/;

/**
 * Bounds on the work of one estimate, which runs on the event loop: byte-pair encoding is
 * quadratic in the length of a run without spaces (100,000 "x" took 80 s here), so text is
 * encoded in slices of SLICE_CHARS, and only its first SAMPLE_CHARS: longer text is counted at the
 * sample's tokens per character. A worst case (no spaces at all) then costs about 20 ms.
 */
const SAMPLE_CHARS = 16 * 1024;
const SLICE_CHARS = 256;

let o200k: Promise<Encoding> | undefined;
let cl100k: Promise<Encoding> | undefined;

function encodingFor(model: string): Promise<Encoding> {
  if (CL100K_MODELS.test(model)) return (cl100k ??= import("gpt-tokenizer/encoding/cl100k_base"));
  return (o200k ??= import("gpt-tokenizer/encoding/o200k_base"));
}

/** Counts the input texts and the answer's text as the model's tokenizer (or the nearest one) would. */
export async function estimateUsage(model: string, inputTexts: string[], answerText: string): Promise<Usage> {
  const encoding = await encodingFor(model);
  const input = boundedCount(encoding, inputTexts.join("\n"));
  const output = boundedCount(encoding, answerText);
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}

function boundedCount(encoding: Encoding, text: string): number {
  const sample = text.slice(0, SAMPLE_CHARS);
  let tokens = 0;
  for (let at = 0; at < sample.length; at += SLICE_CHARS) tokens += encoding.countTokens(sample.slice(at, at + SLICE_CHARS));
  return sample.length === text.length ? tokens : Math.round((tokens / sample.length) * text.length);
}
