import type { Dialect } from "./dialects/dialect";

/**
 * What is probably wrong with a provider base URL, or undefined. Sieve appends the API path to it:
 * `/chat/completions` to an OpenAI-compatible URL (which ends at its version segment, …/v1), and
 * `/v1/messages` to an Anthropic one (which does not). A bare host for OpenAI, or a trailing /v1
 * for Anthropic, turns every call into the provider's 404.
 */
export function baseUrlWarning(provider: Dialect["provider"], baseUrl: string): string | undefined {
  let path: string;
  try {
    path = new URL(baseUrl).pathname.replace(/\/+$/, "");
  } catch {
    return undefined;
  }
  if (provider === "openai" && path === "") {
    return `${baseUrl} has no path: an OpenAI-compatible base URL ends in its version segment (e.g. https://api.openai.com/v1), since Sieve appends /chat/completions to it`;
  }
  if (provider === "anthropic" && /\/v1$/.test(path)) {
    return `${baseUrl} ends in /v1: Sieve appends /v1/messages to the Anthropic base URL, so requests go to …/v1/v1/messages; use ${baseUrl.replace(/\/v1\/*$/, "")}`;
  }
  return undefined;
}

/** The hint sent with a provider's 404 on a path Sieve forwarded: which URL was called and what to check. */
export function notFoundHint(provider: Dialect["provider"], baseUrl: string, calledUrl: string): string {
  const flag = provider === "anthropic" ? "--anthropic-upstream-url or the workspace's anthropic_upstream_url" : "--upstream-url or the workspace's upstream_url";
  return `the provider answered 404 for ${calledUrl}: check the provider base URL (${flag})${baseUrlWarning(provider, baseUrl) ? `; ${baseUrlWarning(provider, baseUrl)}` : ""}`;
}

/** Header values are printable ASCII. */
export const hintHeader = (hint: string): Record<string, string> => ({ "x-service-hint": hint.replace(/[^\x20-\x7e]/g, "?").slice(0, 500) });

/**
 * A client base URL with /v1 twice (the Anthropic SDK pointed at …/v1 calls /v1/v1/messages):
 * never forwarded, since a known dialect's path would reach the provider unscanned.
 */
export function doubledVersionHint(path: string, origin: string): string | undefined {
  if (!/^\/v1\/v1(\/|$)/.test(path)) return undefined;
  return `${path} has /v1 twice: the client's base URL already ends in /v1 and its SDK adds another. Use ${origin} as the Anthropic SDK's base URL, ${origin}/v1 as the OpenAI SDK's`;
}

/** A provider path without Sieve's /v1 (the OpenAI SDK pointed at the bare host calls /chat/completions). */
export function missingVersionHint(path: string, origin: string): string | undefined {
  if (!/^\/(chat\/completions|responses|messages|embeddings|models|completions)(\/|$)/.test(path)) return undefined;
  return `no such route ${path}: Sieve's provider paths start with /v1; use ${origin}/v1 as the OpenAI SDK's base URL (${origin} for the Anthropic SDK)`;
}
