import { isRecord, type Json } from "./fields";

const count = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/**
 * Messages usage → chat usage. Anthropic counts cached prompt tokens apart from input_tokens;
 * OpenAI's prompt_tokens include them (cache reads reported again as cached_tokens).
 */
export function chatUsage(usage: unknown): Json {
  const u = isRecord(usage) ? usage : {};
  const cached = count(u.cache_read_input_tokens);
  const prompt = count(u.input_tokens) + cached + count(u.cache_creation_input_tokens);
  const completion = count(u.output_tokens);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } };
}

/** Chat usage → Messages usage: the reverse of chatUsage (cached tokens are cache reads, the rest input). */
export function messagesUsage(usage: unknown): { input_tokens: number; output_tokens: number; cache_read_input_tokens: number } {
  const u = isRecord(usage) ? usage : {};
  const cached = count(isRecord(u.prompt_tokens_details) ? u.prompt_tokens_details.cached_tokens : 0);
  return { input_tokens: Math.max(0, count(u.prompt_tokens) - cached), output_tokens: count(u.completion_tokens), cache_read_input_tokens: cached };
}
