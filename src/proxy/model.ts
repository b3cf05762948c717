import { z } from "zod";

const contentPart = z.looseObject({ type: z.string() });

export const chatMessage = z.looseObject({
  role: z.string().min(1),
  content: z.union([z.string(), z.array(contentPart), z.null()]).optional(),
});

/**
 * The part of a chat-completions body Sieve checks before forwarding. Everything else
 * (tools, response_format, …) passes through untouched: the raw body is what is forwarded.
 */
export const chatCompletionBody = z.looseObject({
  model: z.string().min(1, "must not be empty"),
  messages: z.array(chatMessage).min(1, "must contain at least one message"),
  stream: z.boolean().optional(),
});

export type ChatCompletionBody = z.infer<typeof chatCompletionBody>;
export type ChatMessage = z.infer<typeof chatMessage>;
