import type { ScannedText } from "../proxy/dialects/dialect";
import type { ChannelText } from "./scan";

/** Texts the input check scans with their channel, oldest first; system texts only when the workspace asks for it. */
export function scannedTexts(texts: ScannedText[], scanSystem: boolean): ChannelText[] {
  return texts.filter((t) => (scanSystem || !t.system) && t.text.trim().length > 0).map((t) => ({ text: t.text, channel: t.channel }));
}

/** The request's system prompt (every system text), compared with the output. */
export function systemPromptText(texts: ScannedText[]): string {
  return texts
    .filter((t) => t.system)
    .map((t) => t.text)
    .join("\n")
    .trim();
}
