/** The model folder (or one of its files) is missing or unreadable; the message names the file. */
export class EmbedderLoadError extends Error {
  override name = "EmbedderLoadError";
}

/** A text the model cannot embed, e.g. one with no tokens at all. */
export class EmbedderInputError extends Error {
  override name = "EmbedderInputError";
}
