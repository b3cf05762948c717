import { isRecord, type Json } from "./fields";

/** Anthropic's error types by status (its documented errors); its SDK picks the error class by status. */
const ANTHROPIC_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  402: "billing_error",
  403: "permission_error",
  404: "not_found_error",
  409: "conflict_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  504: "timeout_error",
  529: "overloaded_error",
};

/** OpenAI's error types by status, as its API writes them; the openai SDK too picks its class by status. */
const OPENAI_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  429: "rate_limit_error",
  500: "server_error",
};

const typeOf = (types: Record<number, string>, status: number) => types[status] ?? types[status >= 500 ? 500 : 400]!;

/** The status an error type stands for: errors inside a stream come without one. */
const statusOf = (types: Record<number, string>, type: unknown) => Number(Object.entries(types).find(([, each]) => each === type)?.[0] ?? 500);

/** The message of an error body in either API's shape, or the body itself when it has none. */
function errorMessage(json: unknown, status: number): string {
  const error = isRecord(json) ? json.error : undefined;
  if (isRecord(error) && typeof error.message === "string") return error.message;
  if (isRecord(json) && typeof json.message === "string") return json.message;
  if (typeof error === "string") return error;
  return json === undefined || json === null ? `the provider answered with status ${status}` : JSON.stringify(json);
}

const errorType = (json: unknown) => (isRecord(json) && isRecord(json.error) ? json.error.type : undefined);

/**
 * An Anthropic error body (`{type: "error", error: {type, message}}`) as OpenAI's
 * (`{error: {message, type, param, code}}`): the type follows the status, and Anthropic's own
 * type is kept as the code.
 */
export function anthropicErrorToChat(json: unknown, status: number): Json {
  const type = errorType(json);
  return { error: { message: errorMessage(json, status), type: typeOf(OPENAI_TYPES, status), param: null, code: typeof type === "string" ? type : null } };
}

/** An OpenAI error body as Anthropic's: the type follows the status. */
export function chatErrorToAnthropic(json: unknown, status: number): Json {
  return { type: "error", error: { type: typeOf(ANTHROPIC_TYPES, status), message: errorMessage(json, status) } };
}

/** An Anthropic error event inside a stream, as chat's error of the status its type stands for. */
export const anthropicStreamErrorToChat = (json: unknown) => anthropicErrorToChat(json, statusOf(ANTHROPIC_TYPES, errorType(json)));

/** A chat error inside a stream, as Anthropic's error of the status its type stands for. */
export const chatStreamErrorToAnthropic = (json: unknown) => chatErrorToAnthropic(json, statusOf(OPENAI_TYPES, errorType(json)));
