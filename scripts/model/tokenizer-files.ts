/** The tokenizer files transformers.js reads, set up the way sentence-transformers runs all-MiniLM-L6-v2. */

/** sentence-transformers truncates this model's input at 256 tokens (the BERT tables allow 512). */
export const MAX_TOKENS = 256;

export function tokenizerConfigJson(): string {
  const config = {
    tokenizer_class: "BertTokenizer",
    do_lower_case: true,
    do_basic_tokenize: true,
    tokenize_chinese_chars: true,
    strip_accents: null,
    never_split: null,
    clean_up_tokenization_spaces: true,
    model_max_length: MAX_TOKENS,
    cls_token: "[CLS]",
    sep_token: "[SEP]",
    pad_token: "[PAD]",
    unk_token: "[UNK]",
    mask_token: "[MASK]",
  };
  return `${JSON.stringify(config, null, 2)}\n`;
}

/**
 * The packaged tokenizer.json carries an export-time truncation of 128 and fixed padding to 128;
 * replace them with the model's real limit and no fixed padding (batches pad to their longest text).
 */
export function tokenizerJson(source: string): string {
  const tokenizer = JSON.parse(source) as { truncation: Record<string, unknown> | null; padding: unknown };
  tokenizer.truncation = { ...tokenizer.truncation, max_length: MAX_TOKENS };
  tokenizer.padding = null;
  return JSON.stringify(tokenizer);
}
