import { chatAnswerToMessages } from "./answer-to-messages";
import { messagesAnswerToChat } from "./answer-to-chat";
import { chatRequestToMessages } from "./chat-to-messages";
import { anthropicErrorToChat, chatErrorToAnthropic } from "./errors";
import { messagesRequestToChat } from "./messages-to-chat";
import { translateSse } from "./sse-pipe";
import { MessagesToChatChunks } from "./stream-to-chat";
import { ChatChunksToMessages } from "./stream-to-messages";
import type { ApiFamily, ClientDialect, Translation } from "./translation";

export type { ApiFamily, ClientDialect, Translation } from "./translation";

/** The Messages API version the translated requests are written for (the only one Anthropic documents). */
const ANTHROPIC_VERSION = "2023-06-01";

/**
 * A new translation for ONE request from a client speaking `from` to a target speaking `to`:
 * call it per request, since `request()` records what the client asked for the answer (whether a
 * chat stream ends with a usage chunk) and `stream()`/`answer()` read it back. Undefined when the
 * families match (nothing to translate) or the client speaks the Responses API (not translated).
 */
export function newTranslation(from: ClientDialect, to: ApiFamily): Translation | undefined {
  if (from === "openai_chat" && to === "anthropic") return chatToMessages();
  if (from === "anthropic_messages" && to === "openai") return messagesToChat();
  return undefined;
}

function chatToMessages(): Translation {
  let includeUsage = false;
  return {
    path: "/v1/messages",
    extraHeaders: { "anthropic-version": ANTHROPIC_VERSION },
    request(body, model) {
      const translated = chatRequestToMessages(body, model);
      includeUsage = translated.includeUsage;
      return JSON.stringify(translated.json);
    },
    answer: messagesAnswerToChat,
    error: anthropicErrorToChat,
    stream: (upstream, requestedModel, limits) => translateSse(upstream, new MessagesToChatChunks(requestedModel, includeUsage), limits?.maxEventChars),
  };
}

function messagesToChat(): Translation {
  return {
    path: "/chat/completions",
    extraHeaders: {},
    request: (body, model) => JSON.stringify(messagesRequestToChat(body, model)),
    answer: chatAnswerToMessages,
    error: chatErrorToAnthropic,
    stream: (upstream, requestedModel, limits) => translateSse(upstream, new ChatChunksToMessages(requestedModel), limits?.maxEventChars),
  };
}
