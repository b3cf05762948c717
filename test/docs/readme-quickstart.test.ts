/**
 * README's quick start, by its own words: the key command it shows and its JavaScript, run as
 * pasted with Node (only the port differs), against a real `sieve serve` and the fake provider.
 * A newcomer following it must get an answer, a cache hit for the paraphrase, and a 403 for the
 * injection, all three in the key's workspace.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeUpstream } from "../support/fake-upstream";
import { REPO, runCli, spawnServe, waitUntilReady, type ServeProcess } from "../support/process";
import { tempDir } from "../support/sieve";

const readme = readFileSync(join(REPO, "README.md"), "utf8");
const upstream = startFakeUpstream();
let serve: ServeProcess | undefined;
const dataDir = tempDir("sieve-quickstart-");
const scriptDir = join(REPO, "test-results", "quickstart");
afterAll(async () => {
  serve?.child.kill("SIGTERM");
  await serve?.child.exited;
  upstream.stop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(scriptDir, { recursive: true, force: true });
});

test("the quick start's key command and snippet work as written: an answer, a cache hit, a 403 with its reason", async () => {
  serve = await spawnServe(["--data-dir", dataDir, "--upstream-url", upstream.url]);
  await waitUntilReady(serve.url);

  // The key command as README shows it (`npm run sieve -- keys create --json` runs src/main.ts).
  const keyCommand = /^npm run --silent sieve -- (keys create --json)$/m.exec(readme)![1]!.split(" ");
  const created = await runCli([...keyCommand, "--data-dir", dataDir]);
  expect(created.code).toBe(0);
  const { api_key, workspace_id } = JSON.parse(created.stdout.trim().split("\n").at(-1)!);

  const snippet = /```js\n(\/\/ npm install openai; node quickstart\.mjs\n[\s\S]*?)```/.exec(readme)![1]!;
  expect(snippet).toContain('baseURL: "http://127.0.0.1:8080/v1"');
  mkdirSync(scriptDir, { recursive: true });
  const script = join(scriptDir, "quickstart.mjs");
  writeFileSync(script, snippet.replace("http://127.0.0.1:8080", serve.url));
  // Node, as a newcomer runs it; the repository's node_modules provides `openai` (resolved upwards from test-results/).
  // (Asynchronously: the fake provider serves from this process.)
  const run = Bun.spawn(["node", script], { env: { ...process.env, OPENAI_API_KEY: "sk-quickstart", SIEVE_KEY: api_key, SIEVE_WORKSPACE: workspace_id }, stdout: "pipe", stderr: "pipe" });
  const [output, errors, exitCode] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  expect([exitCode, errors]).toEqual([0, ""]);
  const lines = output.trim().split("\n");
  expect(lines[0]).toContain("capital of Australia");
  expect(lines[1]).toStartWith("403 ");
  expect(lines[1]).toContain("prompt_injection");

  // The evidence log is written in the background: read it once all three records are in.
  let records: any[] = [];
  for (let i = 0; i < 100 && records.length < 3; i++, await Bun.sleep(50)) {
    const response = await fetch(`${serve.url}/v1/evidence?limit=10`, { headers: { "x-service-api-key": api_key, "x-service-workspace-id": workspace_id } });
    records = ((await response.json()) as any).records;
  }
  // (created_at has whole seconds on SQLite: compared as a set.)
  expect(records.map((r) => `${r.status} ${r.cache_status}`).sort()).toEqual(["200 hit", "200 miss", "403 skip"]);
}, 120_000);
