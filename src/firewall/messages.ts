import type { ScannedText } from "../proxy/dialects/dialect";

/** Texts the input check scans, oldest first; system texts only when the workspace asks for it. */
export function scannedTexts(texts: ScannedText[], scanSystem: boolean): string[] {
  return texts.filter((t) => (scanSystem || !t.system) && t.text.trim().length > 0).map((t) => t.text);
}

/** The request's system prompt (every system text), compared with the output. */
export function systemPromptText(texts: ScannedText[]): string {
  return texts
    .filter((t) => t.system)
    .map((t) => t.text)
    .join("\n")
    .trim();
}
