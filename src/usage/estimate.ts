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

let o200k: Promise<Encoding> | undefined;
let cl100k: Promise<Encoding> | undefined;

function encodingFor(model: string): Promise<Encoding> {
  if (CL100K_MODELS.test(model)) return (cl100k ??= import("gpt-tokenizer/encoding/cl100k_base"));
  return (o200k ??= import("gpt-tokenizer/encoding/o200k_base"));
}

/** Counts the input texts and the answer's text as the model's tokenizer (or the nearest one) would. */
export async function estimateUsage(model: string, inputTexts: string[], answerText: string): Promise<Usage> {
  const encoding = await encodingFor(model);
  const input = inputTexts.reduce((sum, text) => sum + encoding.countTokens(text), 0);
  const output = answerText ? encoding.countTokens(answerText) : 0;
  return { prompt_tokens: input, completion_tokens: output, total_tokens: input + output };
}
