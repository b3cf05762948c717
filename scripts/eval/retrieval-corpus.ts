/**
 * Generated equipment manuals with a labelled question set, for eval:retrieval, bench:search and
 * the search tests. Each manual has sections of error codes, functions of its control API and
 * spare parts; every fact sentence is unique, so the gold chunk of a question is the chunk whose
 * text holds its fact. Questions come in three kinds: paraphrase (other words than the chunk's:
 * the vector side's case), identifier (an error code, function name or part number alone: the
 * keyword side's case) and phrase (a quoted run of the chunk's own words plus a vaguer paraphrase).
 */
import { seededRandom } from "../seeded-random";

/** A part as a chunk names it and as a question does (different words on purpose). */
const COMPONENTS: [string, string][] = [
  ["coolant pump", "pump that circulates the cooling liquid"],
  ["fan bearing", "bearing of the cooling fan"],
  ["drive belt", "belt that turns the drum"],
  ["pressure sensor", "gauge that measures pressure"],
  ["heating element", "heater"],
  ["control board", "main electronics"],
  ["door latch", "lock on the door"],
  ["water inlet valve", "valve where water comes in"],
  ["exhaust filter", "filter on the air outlet"],
  ["stepper motor", "motor that moves the carriage"],
  ["thermal fuse", "fuse that trips on heat"],
  ["power supply unit", "mains adapter inside the unit"],
];

/** A failure as a chunk states it and as a question asks about it. */
const FAILURES: [string, string][] = [
  ["stalls during start-up", "stops turning when the machine is switched on"],
  ["overheats under continuous load", "gets too hot after running for a long time"],
  ["reports an open circuit", "seems to have a broken wire"],
  ["leaks at the seal", "drips liquid from the gasket"],
  ["vibrates at high speed", "shakes when it runs fast"],
  ["does not respond to commands", "ignores what the controller tells it"],
];

const REMEDIES = [
  "Disconnect mains power and replace the part as a unit.",
  "Clean the contacts, reseat the connector and run the self-test again.",
  "Check the wiring harness for damage before ordering a replacement.",
  "Lubricate the assembly and tighten the mounting screws to the listed torque.",
];

const VERBS: [string, string][] = [
  ["parse", "reads"],
  ["validate", "checks"],
  ["merge", "combines"],
  ["export", "writes out"],
  ["calibrate", "adjusts"],
  ["reset", "clears"],
];

const NOUNS: [string, string][] = [
  ["chunk_metadata", "the metadata block attached to each recorded chunk"],
  ["sensor_readings", "the recent measurements from every sensor"],
  ["fault_log", "the list of faults the unit has recorded"],
  ["spindle_profile", "the speed curve of the spindle"],
  ["firmware_manifest", "the description of the installed firmware"],
  ["dose_schedule", "the timetable of chemical dosing"],
];

const PRODUCTS = ["Aurora", "Basalt", "Cobalt", "Dune", "Ember", "Fjord", "Granite", "Harbor", "Iris", "Juniper", "Kestrel", "Lumen"];

export type Question = { kind: "paraphrase" | "identifier" | "phrase"; query: string; gold: string };
export type Manual = { filename: string; markdown: string };
export type RetrievalCorpus = { manuals: Manual[]; questions: Question[] };

/** `count` manuals (up to 12) and their questions, the same for a seed on every run. */
export function retrievalCorpus(seed: number, count = 8): RetrievalCorpus {
  const random = seededRandom(seed);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const usedCodes = new Set<string>();
  const uniqueCode = (make: () => string) => {
    for (;;) {
      const code = make();
      if (!usedCodes.has(code)) return usedCodes.add(code), code;
    }
  };
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join("");
  const letter = () => String.fromCharCode(65 + Math.floor(random() * 26));
  const manuals: Manual[] = [];
  const questions: Question[] = [];
  for (const product of PRODUCTS.slice(0, count)) {
    const blocks = [`# ${product} service manual`, `This manual covers servicing of the ${product} unit by trained technicians.`, "## Error codes"];
    for (const [component, componentAsked] of shuffled(COMPONENTS, random).slice(0, 6)) {
      const [failure, failureAsked] = pick(FAILURES);
      const code = uniqueCode(() => `E${digits(4)}-${letter()}`);
      const fact = `Error ${code} on the ${product} means the ${component} ${failure}.`;
      blocks.push(`### Error ${code}`, `${fact} ${pick(REMEDIES)}`);
      questions.push({ kind: "paraphrase", query: `What is wrong when the ${componentAsked} of the ${product} ${failureAsked}?`, gold: fact });
      questions.push({ kind: "identifier", query: code, gold: fact });
    }
    blocks.push("## Control API");
    for (const [[verb, verbSays], [noun, nounSays]] of shuffled(VERBS, random).slice(0, 4).map((verb) => [verb, pick(NOUNS)] as const)) {
      const name = `${verb}_${noun}_${product.toLowerCase()}`;
      const fact = `The function ${name} ${verbSays} ${nounSays} of the ${product}.`;
      blocks.push(`### ${name}`, `${fact} It returns an error value when the unit is busy.`);
      questions.push({ kind: "identifier", query: name, gold: fact });
    }
    blocks.push("## Spare parts");
    for (const [component] of shuffled(COMPONENTS, random).slice(0, 4)) {
      const part = uniqueCode(() => `PN-${digits(5)}-${letter()}`);
      const fact = `Part number ${part} is the replacement ${component} for the ${product}, sold as a kit with its fixings.`;
      blocks.push(fact);
      questions.push({ kind: "identifier", query: `${part} price`, gold: fact });
      questions.push({ kind: "phrase", query: `"replacement ${component} for the ${product}"`, gold: fact });
    }
    manuals.push({ filename: `${product.toLowerCase()}-manual.md`, markdown: blocks.join("\n\n") + "\n" });
  }
  return { manuals, questions };
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
