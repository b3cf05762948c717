import type { ChatMessage } from "../proxy/model";

/** Roles whose text is scanned: what the user typed and what tools returned (where indirect injections arrive). */
const SCANNED_ROLES = new Set(["user", "tool", "function"]);
/** "developer" is the newer OpenAI name for the system role. */
const SYSTEM_ROLES = new Set(["system", "developer"]);

/** The text of one message: a string content, or the text parts of a multi-part content. */
export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
}

/** Texts the input check scans, oldest first; the system prompt only when the workspace asks for it. */
export function scannedTexts(messages: ChatMessage[], scanSystem: boolean): string[] {
  return messages
    .filter((m) => SCANNED_ROLES.has(m.role) || (scanSystem && SYSTEM_ROLES.has(m.role)))
    .map(messageText)
    .filter((text) => text.trim().length > 0);
}

/** The request's system prompt (all system/developer messages), compared with the output. */
export function systemPromptText(messages: ChatMessage[]): string {
  return messages
    .filter((m) => SYSTEM_ROLES.has(m.role))
    .map(messageText)
    .join("\n")
    .trim();
}
