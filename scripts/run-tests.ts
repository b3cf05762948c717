/**
 * `npm test`: runs the whole bun test suite and ends with the one line this project's CI reads,
 * `N passed, N failed` (bun's own summary is not that line), summed over its runs. Extra arguments go to bun test.
 * Exit status is non-zero when any test failed or the runner itself failed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const outDir = join(root, "test-results");
mkdirSync(outDir, { recursive: true });

ensureChromium();

/**
 * The whole suite on the default backend (native where it loads), then the suites whose answers
 * come from the model again on ONNX Runtime WASM, the portable fallback, then the tenancy suites
 * on PostgreSQL. With extra arguments
 * (a file or folder), one run of just those.
 */
const extra = process.argv.slice(2);
const runs: { name: string; args: string[]; env: Record<string, string> }[] =
  extra.length > 0
    ? [{ name: "selected", args: extra, env: {} }]
    : [
        { name: "all", args: [], env: {} },
        { name: "wasm", args: ["test/embeddings", "test/firewall", "test/cache"], env: { SIEVE_EMBED_BACKEND: "wasm" } },
        // The tenancy isolation suites, the response cache (on PostgreSQL its nearest-entry search is
        // SQL of its own), document search and chunk flags (their rescans claim variants in SQL) again
        // on PostgreSQL (a throw-away cluster the suite starts itself, scripts/pg/cluster.ts);
        // test/fleet, in the first run, covers two instances on one database.
        {
          name: "postgres",
          args: ["test/tenancy", "test/hardening/tenants.test.ts", "test/cache/cache.test.ts", "test/documents/search.test.ts", "test/documents/chunk-flags.test.ts"],
          env: { SIEVE_TEST_DATABASE: "postgres" },
        },
      ];

let total = 0;
let failed = 0;
let skipped = 0;
let runnerFailed = false;
for (const run of runs) {
  const junit = join(outDir, `junit-${run.name}.xml`);
  writeFileSync(junit, "");
  if (runs.length > 1) console.log(`\n== bun test (${run.name}${Object.entries(run.env).map(([name, value]) => `, ${name}=${value}`).join("")})`);
  const child = Bun.spawn([process.execPath, "test", "--timeout", "120000", "--reporter=junit", `--reporter-outfile=${junit}`, ...run.args], {
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
    env: { ...process.env, FORCE_COLOR: "0", ...run.env },
  });
  const code = await child.exited;
  const xml = readFileSync(junit, "utf8");
  const root_ = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? "";
  const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root_)?.[1] ?? 0);
  const runFailed = attr("failures") + attr("errors");
  total += attr("tests");
  failed += runFailed;
  skipped += attr("skipped");
  // A crashed runner or an empty run is a failure, whatever the XML says.
  if ((code !== 0 && runFailed === 0) || attr("tests") === 0) runnerFailed = true;
}
const passed = total - failed - skipped;
const reportedFailed = runnerFailed ? failed + 1 : failed;
writeFileSync(join(outDir, "summary.json"), JSON.stringify({ passed, failed: reportedFailed, skipped }));
console.log(`${passed} passed, ${reportedFailed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(reportedFailed > 0 ? 1 : 0);

/**
 * The dashboard's end-to-end test drives Debian's Chromium. The test set-up installs it when it
 * is missing and this is a Debian machine where we may (root with apt-get); elsewhere the test
 * explains what to install (and fails under CI).
 */
function ensureChromium() {
  const chromium = "/usr/bin/chromium";
  if (existsSync(chromium) || process.getuid?.() !== 0 || !Bun.which("apt-get")) return;
  console.log("test set-up: installing Debian's chromium for the dashboard's browser test (apt-get)…");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  for (const command of [["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]]) {
    const result = Bun.spawnSync(command, { env, stdout: "ignore", stderr: "inherit" });
    if (result.exitCode !== 0) {
      console.log(`test set-up: \`${command.join(" ")}\` failed (exit ${result.exitCode})`);
      return;
    }
  }
}
