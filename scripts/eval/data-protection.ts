/**
 * npm run eval:data-protection — precision and recall of each entity type's detector over the three
 * labelled splits made by data-protection-gen.ts (scripts/eval/data/data-protection.jsonl, "dev",
 * data-protection-heldout.jsonl, "held-out", and data-protection-fresh.jsonl, "fresh"; generated
 * in memory when the files are absent),
 * and the false-positive rate on their ordinary texts (the share of them with any finding).
 * The detectors were developed against dev; held-out has other templates, locales and look-alikes
 * and is only measured (its misses were read once, for issue 50's second round: the phone words
 * and token formats added then are general lists, but held-out's figures are no longer untouched).
 * Fresh (data-protection-fresh.jsonl), written after that round from yet other formats, countries,
 * languages and look-alikes, is the untouched one: `--errors` never lists its errors.
 *
 * A finding counts as a true positive when it overlaps a labelled entity of the same type; every
 * other finding is a false positive of its type; a labelled entity no finding overlaps is a miss.
 * All built-in detectors run with the default policy (what a new workspace gets); phone numbers are
 * measured once more with data_protection.phone_regions set to the regions the split's numbers come from.
 * `--errors` lists dev's and held-out's first 25 errors (do not read held-out's to tune a detector).
 * Last, every region's example mobile number as libphonenumber-js ships it (examples.mobile.json,
 * from Google's libphonenumber metadata: not written by the project), in its national and its
 * international form after "Phone:", with the default policy: which numbering plans are read.
 */
import { getCountries, getExampleNumber } from "libphonenumber-js";
import examples from "libphonenumber-js/examples.mobile.json";
import { existsSync, readFileSync } from "node:fs";
import { BUILTIN_TYPES } from "../../src/data-protection/model";
import { compilePolicy, scanText } from "../../src/data-protection/policy";
import { dataFile, generate, PHONE_REGIONS, type Sample, type Split } from "./data-protection-gen";

const showErrors = process.argv.includes("--errors");
const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;
const pct = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : "n/a");

async function evaluate(split: Split, title: string) {
  const file = dataFile(split);
  const samples: Sample[] = existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").map((line) => JSON.parse(line)) : generate(split);
  const policy = compilePolicy(null);
  const regional = compilePolicy({ actions: {}, custom: [], phone_regions: PHONE_REGIONS[split] });
  const phoneWithRegions = { tp: 0, fp: 0, fn: 0 };
  const counts = Object.fromEntries(BUILTIN_TYPES.map((t) => [t, { tp: 0, fp: 0, fn: 0 }]));
  let ordinary = 0;
  let ordinaryFlagged = 0;
  const examples: string[] = [];
  for (const sample of samples) {
    const findings = await scanText(sample.text, policy);
    for (const entity of sample.entities) {
      if (findings.some((f) => f.type === entity.type && overlaps(f, entity))) counts[entity.type]!.tp++;
      else {
        counts[entity.type]!.fn++;
        if (examples.length < 25) examples.push(`miss ${entity.type}: ${JSON.stringify(sample.text.slice(Math.max(0, entity.start - 20), entity.end + 20))}`);
      }
    }
    for (const finding of findings) {
      if (!sample.entities.some((e) => e.type === finding.type && overlaps(finding, e))) {
        counts[finding.type]!.fp++;
        if (examples.length < 25) examples.push(`false ${finding.type}: ${JSON.stringify(sample.text.slice(finding.start, finding.end))} in ${sample.id}`);
      }
    }
    const phones = (await scanText(sample.text, regional)).filter((f) => f.type === "phone");
    for (const entity of sample.entities.filter((e) => e.type === "phone")) phoneWithRegions[phones.some((f) => overlaps(f, entity)) ? "tp" : "fn"]++;
    phoneWithRegions.fp += phones.filter((f) => !sample.entities.some((e) => e.type === "phone" && overlaps(f, e))).length;
    if (sample.kind === "ordinary") {
      ordinary++;
      if (findings.length) ordinaryFlagged++;
    }
  }
  console.log(`## ${title}: ${samples.length} samples (${samples.length - ordinary} with an entity, ${ordinary} ordinary)\n`);
  console.log("| type | labelled | precision | recall |\n| --- | ---: | ---: | ---: |");
  for (const type of BUILTIN_TYPES) {
    const { tp, fp, fn } = counts[type]!;
    console.log(`| ${type} | ${tp + fn} | ${pct(tp / (tp + fp))} | ${pct(tp / (tp + fn))} |`);
  }
  const { tp, fp, fn } = phoneWithRegions;
  console.log(`| phone, phone_regions ${PHONE_REGIONS[split].join(",")} | ${tp + fn} | ${pct(tp / (tp + fp))} | ${pct(tp / (tp + fn))} |`);
  console.log(`\nFalse-positive rate on ordinary text: ${((100 * ordinaryFlagged) / ordinary).toFixed(2)}% (${ordinaryFlagged} of ${ordinary})\n`);
  if (showErrors && split !== "fresh" && examples.length) console.log(`First errors:\n${examples.join("\n")}\n`);
}

await evaluate("dev", "dev (the detectors were developed against it)");
await evaluate("heldout", "held-out (other templates, locales and look-alikes; only measured)");
await evaluate("fresh", "fresh (other formats, countries, languages and look-alikes again; untouched, errors never listed)");
await evaluateRegions();

async function evaluateRegions() {
  const policy = compilePolicy(null);
  const found = async (written: string) => {
    const text = `Phone: ${written}`;
    return (await scanText(text, policy)).some((f) => f.type === "phone" && overlaps(f, { start: 7, end: text.length }));
  };
  const missed: string[] = [];
  let regions = 0;
  let international = 0;
  let national = 0;
  for (const region of getCountries()) {
    const example = getExampleNumber(region, examples as never);
    if (!example) continue;
    regions++;
    if (await found(example.formatInternational())) international++;
    if (await found(example.formatNational())) national++;
    else missed.push(`${region} ${example.formatNational()}`);
  }
  console.log(`## Every region's example mobile number (libphonenumber-js), after "Phone:", default policy\n`);
  console.log(`${regions} regions: international form found in ${international}, national form in ${national}.`);
  console.log(`National forms not found: ${missed.join(", ")}\n`);
}

// Bun went on for minutes of CPU after this point (no JS task pending, a full GC took 46 ms;
// observed with Bun 1.4.5 once the held-out split was added): the results are printed, so end here.
process.exit(0);
