import { z } from "zod";

const EXPECTED = "expected a whole number (digits only)";

/**
 * A whole number from JSON (a number) or from a query string or form field (digits only).
 * z.coerce.number() would take `true`, `null`, `""`, `" 5"`, `+5`, `0x10` and `1e3` as numbers;
 * the API's contract is plain digits. The pipe's output side keeps the schema representable in
 * the OpenAPI document (an integer with its bounds).
 */
export const wholeNumber = (min: number, max: number) =>
  z
    .union([z.int(), z.string().regex(/^\d{1,16}$/)], { error: EXPECTED })
    .pipe(z.coerce.number<string | number>().int(EXPECTED).min(min).max(max));
