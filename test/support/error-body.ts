/**
 * The code and sentence of a Sieve error body, whichever API answered: Sieve's own
 * `{detail, status_code, code}`, OpenAI's `{error: {message, code}}` or Anthropic's
 * `{type: "error", error: {type, message, code}}`. For tests about what an error says; the
 * shapes themselves are asserted in test/proxy/sdk-errors.test.ts and test/documents/bad-input.test.ts.
 */
export function errorOf(body: any): { code: string; message: string } {
  if (typeof body?.detail === "string" && typeof body?.status_code === "number") return { code: body.code, message: body.detail };
  if (body?.error && typeof body.error === "object") return { code: body.error.code, message: body.error.message };
  throw new Error(`not an error body of Sieve's: ${JSON.stringify(body)}`);
}
