import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { devNearCopies } from "../../scripts/fit/dev-overlap";
import { HARMFUL_PAIR_CATEGORY, ownExamples, TASK_PROMPT_CATEGORY } from "../../scripts/fit/firewall-own-examples";
import { readLabelled } from "../../scripts/eval/firewall-data";
import { assertNotFromDataChannelDev, modelRequests, personRequests, placeInCarrier } from "../../scripts/fit/firewall-own-addressed-requests";

// The firewall's project-written training rows must never be near copies of firewall-dev rows
// (the dev set is never fitted on, directly or through a text derived from it).
describe("project-written firewall training rows and firewall-dev", () => {
  const dir = mkdtempSync(join(tmpdir(), "sieve-dev-overlap-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const devFile = join(dir, "dev.jsonl");
  const devText = "I want you to act as a museum guide. I will name a painting and you will tell me its story in three sentences, and nothing else.";
  writeFileSync(devFile, `${JSON.stringify({ id: "dev-1", text: devText, label: "attack" })}\n`);

  test("a near copy is found; a shared stock phrase is not", () => {
    const nearCopy = devText.replace("three sentences", "four sentences");
    const stock = "I want you to act as a travel planner for a week in Portugal with two children.";
    const found = devNearCopies([nearCopy, stock], devFile);
    expect(found.map((f) => f.devId)).toEqual(["dev-1"]);
    expect(found[0]!.text).toBe(nearCopy);
  });

  test("the committed examples, matched pairs, harmful-request pairs, persona and task prompts copy no firewall-dev row", () => {
    // ownExamples throws (naming the rows) when one does.
    expect(ownExamples({ matchedPairs: true, harmfulPairs: true, personaPrompts: true, taskPrompts: true }).length).toBeGreaterThan(6600);
  });

  test("the held-out harmful requests share no text with the fitted pairs and copy no firewall-dev row", () => {
    const heldOut = readLabelled(resolve(import.meta.dir, "../../scripts/eval/firewall-harmful-requests.jsonl"));
    const fitted = new Set(ownExamples({ harmfulPairs: true }).filter((e) => e.category.startsWith(HARMFUL_PAIR_CATEGORY)).map((e) => e.text));
    expect(heldOut.length).toBe(480);
    expect(fitted.size).toBe(1920);
    expect(heldOut.filter((row) => fitted.has(row.text))).toEqual([]);
    expect(devNearCopies(heldOut.map((row) => row.text))).toEqual([]);
  });

  test("the held-out task prompts share no text with the fitted ones and copy no firewall-dev row", () => {
    const heldOut = readLabelled(resolve(import.meta.dir, "../../scripts/eval/firewall-task-prompts.jsonl"));
    const fitted = new Set(ownExamples({ taskPrompts: true }).filter((e) => e.category === TASK_PROMPT_CATEGORY).map((e) => e.text));
    expect(heldOut.length).toBe(111);
    expect(fitted.size).toBe(339);
    expect(heldOut.filter((row) => fitted.has(row.text))).toEqual([]);
    expect(devNearCopies(heldOut.map((row) => row.text))).toEqual([]);
  });
});

// The data channel's person- and model-addressed examples (scripts/fit/firewall-own-addressed-requests.ts):
// composed with a seed, so a refit sees the same rows, and never taken from the data-channel dev set.
describe("project-written addressed sentences for the data channel's addressee head", () => {
  test("the same seed gives the same sentences, another seed others; none occurs in the data-channel dev set", () => {
    const sentences = personRequests(1500);
    expect(sentences).toHaveLength(1500);
    expect(new Set(sentences).size).toBe(1500);
    expect(personRequests(1500)).toEqual(sentences);
    expect(personRequests(50, 7)).not.toEqual(sentences.slice(0, 50));
    expect(() => assertNotFromDataChannelDev(sentences)).not.toThrow();
    expect(() => assertNotFromDataChannelDev(["Remember to bring your badge, the front desk will not let you in without it."])).toThrow("data-channel dev set");
  });

  test("model-addressed sentences: deterministic, distinct, none from the dev set, and other sentences than the person-addressed ones", () => {
    const sentences = modelRequests(1500);
    expect(sentences).toHaveLength(1500);
    expect(new Set(sentences).size).toBe(1500);
    expect(modelRequests(1500)).toEqual(sentences);
    expect(() => assertNotFromDataChannelDev(sentences)).not.toThrow();
    const people = new Set(personRequests(1500));
    expect(sentences.filter((s) => people.has(s))).toEqual([]);
  });

  test("a sentence is placed at a sentence boundary of its carrier", () => {
    expect(placeInCarrier("Order shipped. It arrives Thursday.", "Please sign for it.", 0.5)).toBe("Order shipped. Please sign for it. It arrives Thursday.");
    expect(placeInCarrier("Order shipped.", "Please sign for it.", 0)).toBe("Please sign for it. Order shipped.");
  });
});
