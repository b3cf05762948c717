/**
 * Why an answer ended, in each API's words. pause_turn (a server tool's turn paused) cannot
 * occur: server tools are never sent across.
 */
const FINISH_REASONS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  pause_turn: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool_calls",
  refusal: "content_filter",
};

/**
 * OpenAI's "stop" covers both a natural end and a stop sequence, and it does not say which
 * sequence: end_turn is the faithful reading when nothing else is known.
 */
const STOP_REASONS: Record<string, string> = {
  stop: "end_turn",
  length: "max_tokens",
  tool_calls: "tool_use",
  function_call: "tool_use",
  content_filter: "refusal",
};

export const finishReason = (stopReason: unknown): string => FINISH_REASONS[String(stopReason)] ?? "stop";
export const stopReason = (finishReason: unknown): string => STOP_REASONS[String(finishReason)] ?? "end_turn";
