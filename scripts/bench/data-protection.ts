/**
 * npm run bench:data-protection — the data protection stage's cost, all built-in detectors on
 * (secret block, the personal data types mask so every finding is also replaced).
 *
 * Scan: a chat request body of ~200 characters and of ~10 KB of ordinary prose with a few
 * e-mail addresses, phone numbers and an IP address in it, and ~10 KB of JSON log lines (timestamps,
 * order ids, amounts, one international phone number a line), scanned and rewritten the way the
 * proxy does (scanJson over the parsed body), p50/p95. The rows reuse one text, so numbers the
 * phone detector read before are answered from its cache of recent windows (a chat client resends
 * the conversation every turn); the "first sight" rows scan a new text with other phone numbers each
 * time. Baselines in the same run: JSON.parse of the same request body, and an arithmetic loop that
 * takes the scan's p50, run alternately with the scan: its p95 is what the machine itself adds
 * (other processes on the 2 shared cores preempt both alike). Bound: one 10 MB prompt, once.
 * Stream restorer: an answer with placeholders streamed in 4-character deltas through the
 * restorer; the cost per event, p50/p95, against building the same event's JSON text.
 */
import { scanJson } from "../../src/data-protection/body-scan";
import { Placeholders } from "../../src/data-protection/placeholders";
import { compilePolicy } from "../../src/data-protection/policy";
import { StreamRestorer } from "../../src/data-protection/restore";
import { markdownTable, ms, summarize } from "./stats";

const policy = compilePolicy({ actions: { email: "mask", phone: "mask", credit_card: "mask", iban: "mask", ip_address: "mask", us_ssn: "mask" }, custom: [] });

const PROSE = [
  "The quarterly report shows that shipping times fell after the new warehouse opened near the port.",
  "Customers in the northern region asked for longer opening hours during the winter months.",
  "Please forward the notes to anna.berg@example.org and call +44 20 7946 0958 if anything is unclear.",
  "Our support team answered most tickets within a day, although weekends remain slower.",
  "The staging server at 10.20.30.40 was rebooted after version 2.4.1 of the agent was installed.",
  "The design group proposed a simpler checkout page with fewer fields and clearer buttons.",
];
function prose(chars: number): string {
  let text = "";
  for (let i = 0; text.length < chars; i++) text += PROSE[i % PROSE.length] + " ";
  return text.slice(0, chars);
}
/** JSON log lines: digit runs that are ids and timestamps, and a phone number on each line. */
function logLines(chars: number, phone = (i: number) => `+44 20 7946 0${100 + (i % 900)}`): string {
  let text = "";
  for (let i = 0; text.length < chars; i++) text += `{"ts":${1717000000 + i * 37},"order_id":${4100000 + i * 13},"user":"u${i}","amount":${i * 7}.50,"phone":"${phone(i)}","status":"ok"}\n`;
  return text.slice(0, chars);
}
const body = (text: string) => JSON.stringify({ model: "gpt-4o-mini", messages: [{ role: "system", content: "You are a helpful assistant." }, { role: "user", content: text }] });

async function time(run: () => unknown, n: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return samples;
}

/**
 * The next of 10,000 London numbers: the first-sight rows' texts hold 7,650 and ~17,000 of them,
 * cycled through in order, so each number was last read more than the detector's cache keeps ago.
 */
let numbered = 0;
const otherNumber = () => `+44 20 7946 ${String(numbered++ % 10000).padStart(4, "0")}`;
const firstSight = (chars: number) => prose(chars).replace(/\+44 20 7946 0958/g, otherNumber);

/** Arithmetic that takes about `target` ms, kept observable so it is not optimised away. */
const sink = new Float64Array(1);
const spin = (iterations: number) => {
  let x = 0;
  for (let k = 0; k < iterations; k++) x += Math.sqrt(k + sink[0]!);
  sink[0] = x % 1;
};
/** How many iterations of spin take `target` ms, timed one call at a time as the rows are. */
async function spinFor(target: number): Promise<number> {
  let iterations = 1000;
  await time(() => spin(iterations), 500);
  for (let round = 0; round < 30; round++) {
    const per = summarize(await time(() => spin(iterations), 21)).p50;
    if (Math.abs(per - target) < target * 0.03) break;
    iterations = Math.max(100, Math.round(iterations * (target / Math.max(per, 1e-4))));
  }
  return iterations;
}

const rows: (string | number)[][] = [];
const withEntities = (PROSE[2]! + " " + PROSE[4]!).slice(0, 200);
for (const [label, texts, n] of [
  ["200 chars, nothing to find", [prose(200)], 3000],
  ["200 chars, e-mail + phone + IP", [withEntities], 3000],
  ["10 KB", [prose(10_000)], 400],
  ["10 KB, phone numbers at first sight", Array.from({ length: 450 }, () => firstSight(10_000)), 400],
  ["10 KB JSON log lines", [logLines(10_000)], 200],
  ["10 KB JSON log lines, phone numbers at first sight", Array.from({ length: 220 }, () => logLines(10_000, otherNumber)), 200],
] as const) {
  const raws = texts.map(body);
  let next = 0;
  const scanNext = () => scanJson(JSON.parse(raws[next++ % raws.length]!), policy, new Placeholders(), (f) => f.action !== "log");
  const warm = summarize(await time(scanNext, 50));
  const iterations = await spinFor(warm.p50);
  const scanSamples: number[] = [];
  const spinSamples: number[] = [];
  for (let i = 0; i < n; i++) {
    scanSamples.push(...(await time(scanNext, 1)));
    spinSamples.push(...(await time(() => spin(iterations), 1)));
  }
  const scan = summarize(scanSamples);
  const machine = summarize(spinSamples);
  const parse = summarize(await time(() => JSON.parse(raws[0]!), n));
  rows.push([label, ms(scan.p50, 3), ms(scan.p95, 3), ms(parse.p50, 3), (scan.p50 / parse.p50).toFixed(1), ms(machine.p50, 3), ms(machine.p95, 3)]);
}
console.log("Scan (JSON.parse + all detectors + placeholders), ms:\n");
console.log(markdownTable(["request", "scan p50", "scan p95", "JSON.parse p50", "ratio p50", "arithmetic of the scan's p50: p50", "its p95"], rows));

const huge = body(prose(10 * 1024 * 1024));
{
  const started = performance.now();
  const found = await scanJson(JSON.parse(huge), policy, new Placeholders(), (f) => f.action !== "log");
  const parseStarted = performance.now();
  JSON.parse(huge);
  console.log(`\n10 MB prompt: ${ms(parseStarted - started, 0)} ms, ${found.length} findings (JSON.parse alone: ${ms(performance.now() - parseStarted, 0)} ms)`);
}

const placeholders = new Placeholders();
const answer = prose(2000).replace(/anna\.berg@example\.org/g, () => placeholders.placeholder("email", "anna.berg@example.org", true));
const deltas = answer.match(/[^]{1,4}/g)!;
const event = (delta: string) => {
  const data = JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content: delta }, finish_reason: null }] });
  return { raw: `data: ${data}\n\n`, event: undefined, data };
};
const events = deltas.map(event);
const perEvent: number[] = [];
const baseline: number[] = [];
for (let round = 0; round < 20; round++) {
  const restorer = new StreamRestorer(placeholders.masked);
  for (const e of events) {
    let started = performance.now();
    restorer.rewrite(e);
    perEvent.push(performance.now() - started);
    started = performance.now();
    JSON.stringify(JSON.parse(e.data));
    baseline.push(performance.now() - started);
  }
}
const restore = summarize(perEvent);
const rebuild = summarize(baseline);
console.log(`\nStream restorer, ${events.length} events of 4 characters x 20 rounds, per event: p50 ${ms(restore.p50, 4)} ms, p95 ${ms(restore.p95, 4)} ms (JSON parse + stringify of the event: p50 ${ms(rebuild.p50, 4)} ms, p95 ${ms(rebuild.p95, 4)} ms)`);
