import { z } from "zod";

/**
 * A whole number from JSON (a number) or from a query string or form field (digits only).
 * z.coerce.number() would take `true`, `null`, `""`, `" 5"`, `+5`, `0x10` and `1e3` as numbers;
 * the API's contract is plain digits. The pipe's output side keeps the schema representable in
 * the OpenAPI document (an integer with its bounds). Every failure reads the same sentence, with
 * the bounds and never the pattern.
 */
export const wholeNumber = (min: number, max: number) => {
  const expected = max >= 1e12 ? `expected a whole number (digits only), ${min} or more` : `expected a whole number (digits only) from ${min} to ${max}`;
  return z
    .union([z.int(), z.string().regex(/^\d{1,16}$/, { error: expected })], { error: expected })
    .pipe(z.coerce.number<string | number>().int(expected).min(min, { error: expected }).max(max, { error: expected }));
};
