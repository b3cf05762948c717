import { z } from "zod";

const contentPart = z.looseObject({ type: z.string() });

/**
 * The roles each API accepts. The firewall picks the texts it scans by role, so a role spelled any
 * other way ("User", "human") is refused (400 naming the field) rather than forwarded unscanned
 * to a provider that may read it as a user turn.
 */
export const CHAT_ROLES = ["system", "developer", "user", "assistant", "tool", "function"] as const;
export const RESPONSES_ROLES = ["user", "assistant", "system", "developer"] as const;

export const chatMessage = z.looseObject({
  role: z.enum(CHAT_ROLES),
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

/** One item of a Responses `input` array: a message (role + content) or another typed item (function_call_output, …). */
export const responsesInputItem = z
  .looseObject({
    type: z.string().min(1).optional(),
    role: z.enum(RESPONSES_ROLES).optional(),
    content: z.union([z.string(), z.array(contentPart)], { error: "must be a string or an array of content parts with a type" }).optional(),
  })
  .refine((item) => (item.type ?? "message") !== "message" || item.role !== undefined, {
    path: ["role"],
    error: `required on a message item: one of ${RESPONSES_ROLES.join(", ")}`,
  });

/** OpenAI Responses API, POST /v1/responses: the fields Sieve reads; the rest passes through. */
export const responsesBody = z.looseObject({
  model: z.string().min(1, "must not be empty"),
  input: z.union([z.string(), z.array(responsesInputItem)], { error: "must be a string or an array of input items (messages with role and content, or typed items)" }).optional(),
  instructions: z.string().nullable().optional(),
  stream: z.boolean().optional(),
  previous_response_id: z.string().nullable().optional(),
});

export type ResponsesBody = z.infer<typeof responsesBody>;
export type ResponsesInputItem = z.infer<typeof responsesInputItem>;

const anthropicBlock = z.looseObject({ type: z.string().min(1) });

export const anthropicMessage = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: z.union([z.string(), z.array(anthropicBlock)], { error: "must be a string or an array of content blocks with a type" }),
});

/** Anthropic Messages API, POST /v1/messages: the fields Sieve reads; the rest passes through. */
export const anthropicMessagesBody = z.looseObject({
  model: z.string().min(1, "must not be empty"),
  max_tokens: z.number().int().positive(),
  messages: z.array(anthropicMessage).min(1, "must contain at least one message"),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))], { error: "must be a string or an array of text blocks" }).optional(),
  stream: z.boolean().optional(),
});

export type AnthropicMessagesBody = z.infer<typeof anthropicMessagesBody>;
export type AnthropicMessage = z.infer<typeof anthropicMessage>;

// ---- Answers, as documented (the proxy relays the provider's bodies untouched; these name the members clients read) ----

export const chatCompletionAnswer = z
  .looseObject({ id: z.string(), object: z.literal("chat.completion"), model: z.string(), choices: z.array(z.looseObject({ index: z.int(), message: z.looseObject({}) })) })
  .describe("The provider's chat completion, relayed as it came (or replayed from the cache)");

export const responsesAnswer = z
  .looseObject({ id: z.string(), object: z.literal("response"), model: z.string(), output: z.array(z.looseObject({})) })
  .describe("The provider's response object, relayed as it came (or replayed from the cache)");

export const anthropicMessageAnswer = z
  .looseObject({ id: z.string(), type: z.literal("message"), role: z.literal("assistant"), model: z.string(), content: z.array(z.looseObject({ type: z.string() })) })
  .describe("Anthropic's message, relayed as it came (or replayed from the cache)");
