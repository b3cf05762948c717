// stopword ships no type declarations; Sieve reads only its English list.
declare module "stopword" {
  /** English stop words, lower case. */
  export const eng: string[];
}
