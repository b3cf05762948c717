import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseRoutingFile, RoutingFileError } from "../../src/routing/config-file";

const defaults = { timeoutMs: 120_000, env: { OPENAI_API_KEY: "sk-openai", ANTHROPIC_API_KEY: "sk-ant", AZURE_KEY: "az" } };

/** The example file, word for word. */
const EXAMPLE = `targets:
  - name: openai-main
    kind: openai                      # openai | anthropic | openai-compatible
    base_url: https://api.openai.com/v1
    api_key: env:OPENAI_API_KEY       # optional: else the caller's key is forwarded
  - name: claude
    kind: anthropic
    base_url: https://api.anthropic.com
    api_key: env:ANTHROPIC_API_KEY
    models: { "gpt-4o": "claude-sonnet-4-5" }   # requested model -> this target's model
routes:
  - match: "gpt-4o*"                  # exact name, glob, or an alias such as "smart"
    strategy: fallback                # fallback | loadbalance (targets may then carry weight:)
    targets: [openai-main, claude]
    retry: { attempts: 2, backoff_ms: 200 }
    timeout_ms: 30000
`;

/** The problems a file is refused for, one per string. */
function problems(text: string, env: Record<string, string> = defaults.env): string[] {
  try {
    parseRoutingFile(text, "sieve.yaml", { ...defaults, env });
  } catch (error) {
    expect(error).toBeInstanceOf(RoutingFileError);
    return (error as RoutingFileError).problems;
  }
  throw new Error("the file was accepted");
}

describe("the routing file", () => {
  test("the documented example is read: globs, model maps, secrets from the environment, defaults", () => {
    const table = parseRoutingFile(EXAMPLE, "sieve.yaml", defaults);
    const route = table.routeFor("gpt-4o-mini")!;
    expect(route.name).toBe("gpt-4o*");
    expect(route.strategy).toBe("fallback");
    expect(route.targets.map((t) => t.target.name)).toEqual(["openai-main", "claude"]);
    expect(route.retry).toEqual({ attempts: 2, backoff_ms: 200, max_backoff_ms: 5_000, max_retry_after_ms: 20_000 });
    expect(route.timeoutMs).toBe(30_000);
    expect(route.deadlineMs).toBe(120_000);
    const [openai, claude] = table.targets;
    expect(openai!.apiKey).toBe("sk-openai");
    expect(claude!.models).toEqual({ "gpt-4o": "claude-sonnet-4-5" });
    expect(claude!.breaker).toEqual({ consecutive_failures: 5, failure_rate: 0.5, min_requests: 20, window_ms: 60_000, cooldown_ms: 30_000 });
    expect(table.routeFor("gpt-4")).toBeUndefined();
  });

  test("docs/routing.md's complete example is a valid routing file", () => {
    const page = readFileSync(join(import.meta.dir, "../../docs/routing.md"), "utf8");
    const example = /```yaml\n(# sieve\.yaml[\s\S]*?)```/.exec(page)![1]!;
    const env = Object.fromEntries(["OPENAI_API_KEY", "AZURE_EAST_KEY", "AZURE_WEST_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_BACKUP_KEY"].map((name) => [name, `value-of-${name}`]));
    const table = parseRoutingFile(example, "docs/routing.md", { timeoutMs: 120_000, env });
    expect(table.routeFor("gpt-4o-mini")!.targets.map((t) => t.target.name)).toEqual(["openai-main", "azure-east", "claude"]);
    expect(table.routeFor("fast")!.strategy).toBe("loadbalance");
    expect(table.routeFor("smart")!.targets[0]!.model).toBe("gpt-4o");
  });

  test("JSON is read too, with the same line numbers in its errors", () => {
    const json = JSON.stringify({ targets: [{ name: "a", kind: "openai", base_url: "http://127.0.0.1:1/v1" }], routes: [{ match: "m", targets: ["a"] }] }, null, 2);
    expect(parseRoutingFile(json, "sieve.json", defaults).routeFor("m")?.targets[0]!.target.name).toBe("a");
    const bad = json.replace('"targets": [\n        "a"\n      ]', '"targets": ["a"], "strategy": "random"');
    expect(problems(bad)).toEqual([expect.stringMatching(/^routes\[0\]\.strategy \(line \d+\): .*fallback.*loadbalance/)]);
  });

  test("exact names and aliases win over globs; globs are tried in file order", () => {
    const table = parseRoutingFile(
      `targets: [{name: a, kind: openai, base_url: "http://h/v1"}, {name: b, kind: openai, base_url: "http://h/v1"}]
routes:
  - { match: "gpt-*", targets: [a] }
  - { match: [smart, "gpt-4o"], targets: [b] }
  - { match: "gpt-4*", targets: [b] }`,
      "f",
      defaults,
    );
    expect(table.routeFor("gpt-4o")!.targets[0]!.target.name).toBe("b");
    expect(table.routeFor("smart")!.targets[0]!.target.name).toBe("b");
    expect(table.routeFor("gpt-4-turbo")!.targets[0]!.target.name).toBe("a");
    expect(table.routeFor("gpt.4o")).toBeUndefined(); // a dot in a glob is a dot
  });

  test("every problem is named with its key and line, all at once", () => {
    const bad = EXAMPLE.replace("kind: anthropic", "kind: anthropik")
      .replace("api_key: env:ANTHROPIC_API_KEY", "api_key: sk-ant-literal-key")
      .replace("targets: [openai-main, claude]", "targets: [openai-main, claud]")
      .replace("backoff_ms: 200 }", "backoff_ms: 200, tries: 3 }");
    const found = problems(bad);
    expect(found).toContain('targets[1].kind (line 7): Invalid option: expected one of "openai"|"anthropic"|"openai-compatible"');
    expect(found).toContainEqual(expect.stringMatching(/^targets\[1\]\.api_key \(line 9\): write env:NAME/));
    expect(found).toContain("routes[0].retry.tries (line 15): unknown key (check its spelling)");
    // The secret written in the file is never echoed back.
    expect(found.join(" ")).not.toContain("sk-ant-literal-key");
  });

  test("cross-references: unknown targets, duplicate names and matches, unset environment variables", () => {
    const found = problems(
      `targets:
  - { name: a, kind: openai, base_url: "http://h/v1", api_key: "env:MISSING_KEY" }
  - { name: a, kind: openai, base_url: "http://h/v1", headers: { api-key: "env:ALSO_MISSING" } }
routes:
  - { match: m, targets: [a, nope] }
  - { match: [x, m], targets: [a] }`,
      {},
    );
    expect(found).toEqual([
      "targets[0].api_key (line 2): the environment variable MISSING_KEY is not set",
      "targets[1].name (line 3): a second target named \"a\"",
      "targets[1].headers.api-key (line 3): the environment variable ALSO_MISSING is not set",
      'routes[0].targets[1] (line 5): no target is named "nope" (targets: a)',
      'routes[1].match[1] (line 6): "m" is already matched by routes[0]',
    ]);
  });

  test("a YAML syntax error names its line; an empty file or a file without targets is refused", () => {
    expect(problems("targets:\n  - name: a\n   kind: openai\n")).toEqual([expect.stringMatching(/^line 3: /)]);
    expect(problems("")).toEqual([expect.stringMatching(/^targets: .*expected array/)]);
    expect(problems("routes: []\n")).toEqual([expect.stringMatching(/^targets \(line 1\): /)]);
  });

  test("base URLs must be plain http(s); a weight must be positive", () => {
    const found = problems(
      `targets:
  - { name: a, kind: openai, base_url: "ftp://h/v1" }
  - { name: b, kind: openai, base_url: "https://user:pw@h/v1" }
  - { name: c, kind: openai, base_url: "https://h/v1?x=1", weight: 0 }
routes: []`,
    );
    expect(found.map((p) => p.split(":")[0])).toEqual(["targets[0].base_url (line 2)", "targets[1].base_url (line 3)", "targets[2].base_url (line 4)", "targets[2].weight (line 4)"]);
  });
});
