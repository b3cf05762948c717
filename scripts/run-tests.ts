/**
 * `npm test`: runs the whole bun test suite and ends with the one line this project's CI reads,
 * `N passed, N failed` (bun's own summary is not that line). Extra arguments go to bun test.
 * Exit status is non-zero when any test failed or the runner itself failed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const outDir = join(root, "test-results");
mkdirSync(outDir, { recursive: true });
const junit = join(outDir, "junit.xml");
writeFileSync(junit, "");

ensureChromium();

const child = Bun.spawn(
  [process.execPath, "test", "--timeout", "120000", "--reporter=junit", `--reporter-outfile=${junit}`, ...process.argv.slice(2)],
  { cwd: root, stdout: "inherit", stderr: "inherit", env: { ...process.env, FORCE_COLOR: "0" } },
);
const code = await child.exited;

const xml = readFileSync(junit, "utf8");
const root_ = /<testsuites\b[^>]*>/.exec(xml)?.[0] ?? "";
const attr = (name: string) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(root_)?.[1] ?? 0);
const total = attr("tests");
const failed = attr("failures") + attr("errors");
const skipped = attr("skipped");
const passed = total - failed - skipped;
// A crashed runner or an empty run is a failure, whatever the XML says.
const runnerFailed = code !== 0 && failed === 0;
const reportedFailed = runnerFailed ? failed + 1 : failed;
writeFileSync(join(outDir, "summary.json"), JSON.stringify({ passed, failed: reportedFailed, skipped }));
console.log(`${passed} passed, ${reportedFailed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(reportedFailed > 0 || total === 0 ? 1 : 0);

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
