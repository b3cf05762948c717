// "Connect your app": the exact base URL and headers, as curl, JavaScript and Python snippets.

import { copyButton, keyValues, pageHeading } from "../components.mjs";
import { append, h } from "../dom.mjs";

const KEY_PLACEHOLDER = "<YOUR_SIEVE_API_KEY>";

function snippets(baseUrl, anthropicBaseUrl, workspaceId) {
  return [
    [
      "curl",
      `curl ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $OPENAI_API_KEY" \\
  -H "X-Service-Api-Key: ${KEY_PLACEHOLDER}" \\
  -H "X-Service-Workspace-Id: ${workspaceId}" \\
  -H "Content-Type: application/json" \\
  -d '{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Hello"}]}'`,
    ],
    [
      "JavaScript (openai)",
      `import OpenAI from "openai";

const client = new OpenAI({
  apiKey: process.env.OPENAI_API_KEY, // your provider key, passed through
  baseURL: "${baseUrl}",
  defaultHeaders: {
    "X-Service-Api-Key": process.env.SIEVE_API_KEY, // ${KEY_PLACEHOLDER}
    "X-Service-Workspace-Id": "${workspaceId}",
  },
});

const completion = await client.chat.completions.create({
  model: "gpt-4o-mini",
  messages: [{ role: "user", content: "Hello" }],
});
console.log(completion.choices[0].message.content);`,
    ],
    [
      "Python (openai)",
      `import os
from openai import OpenAI

client = OpenAI(
    api_key=os.environ["OPENAI_API_KEY"],  # your provider key, passed through
    base_url="${baseUrl}",
    default_headers={
        "X-Service-Api-Key": os.environ["SIEVE_API_KEY"],  # ${KEY_PLACEHOLDER}
        "X-Service-Workspace-Id": "${workspaceId}",
    },
)

completion = client.chat.completions.create(
    model="gpt-4o-mini",
    messages=[{"role": "user", "content": "Hello"}],
)
print(completion.choices[0].message.content)`,
    ],
    [
      "JavaScript (@anthropic-ai/sdk)",
      `import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic({
  apiKey: process.env.ANTHROPIC_API_KEY, // your provider key, passed through
  baseURL: "${anthropicBaseUrl}", // no /v1: the SDK adds it
  defaultHeaders: {
    "X-Service-Api-Key": process.env.SIEVE_API_KEY, // ${KEY_PLACEHOLDER}
    "X-Service-Workspace-Id": "${workspaceId}",
  },
});

const message = await client.messages.create({
  model: "claude-sonnet-4-5",
  max_tokens: 512,
  messages: [{ role: "user", content: "Hello" }],
});
console.log(message.content[0].text);`,
    ],
  ];
}

export function connectPage({ view, session }) {
  const baseUrl = `${location.origin}/v1`;
  const workspaceId = session.workspace.id;
  append(view,
    pageHeading("Connect your app"),
    h("p", {}, "Keep your OpenAI-compatible client; change its base URL to Sieve and add two headers. Your provider key still goes in ", h("code", {}, "Authorization"), " and is passed through to the provider, never stored."),
    h("p", {}, "Chat completions, the Responses API and Anthropic's Messages API go through the firewall and the cache; every other ", h("code", {}, "/v1"), " path (models, files, audio, images, batches…) is passed through to the provider. Anthropic's SDK takes the base URL without ", h("code", {}, "/v1"), "."),
    keyValues([
      ["Base URL", h("span", { class: "inline" }, h("code", { "data-testid": "base-url" }, baseUrl), copyButton(baseUrl, "base URL"))],
      ["Authorization", h("code", {}, "Bearer <YOUR_PROVIDER_API_KEY>")],
      ["X-Service-Api-Key", [h("code", {}, KEY_PLACEHOLDER), " (create one under ", h("a", { href: "#/settings/keys" }, "Settings → API Keys"), ")"]],
      ["X-Service-Workspace-Id", h("span", { class: "inline" }, h("code", {}, workspaceId), copyButton(workspaceId, "workspace ID"))],
    ]),
    snippets(baseUrl, location.origin, workspaceId).map(([title, code]) =>
      h("section", { class: "snippet" }, h("div", { class: "snippet-head" }, h("h2", {}, title), copyButton(code, `${title} example`)), h("pre", { class: "code", tabindex: "0" }, code)),
    ),
    h(
      "p",
      { class: "muted" },
      "Document API: ",
      h("code", {}, `${location.origin}/api/documents`),
      " with ",
      h("code", {}, `Authorization: Bearer ${KEY_PLACEHOLDER}`),
      ". Every endpoint is described at ",
      h("a", { href: "/openapi" }, "/openapi"),
      ".",
    ),
  );
}
