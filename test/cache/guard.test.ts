import { describe, expect, test } from "bun:test";
import { guardMatch, prepareForMatching, promptFacts } from "../../src/cache/guard";
import { AXES } from "../../src/cache/guard-lexicon";
import { chooseMatch } from "../../src/cache/match";
import { Readability } from "../../src/embeddings/readability";
import { assetPaths } from "../../src/runtime/assets";

const verdict = (query: string, stored: string) => guardMatch(promptFacts(query), promptFacts(stored));

describe("the precision guard lets paraphrases through", () => {
  test.each([
    ["What is the capital of France?", "What's the capital city of france?"],
    ["How do I improve my handwriting?", "What are ways to improve my handwriting?"],
    ["Which Beatles album is the best?", "Which is the best album by the Beatles?"],
    ["How much is 30k rupees in dollars?", "How much is Rs 30,000 in dollars?"],
    ["Why don't cats like water?", "Why do cats not like water?"],
    ["How do I use `git rebase` safely?", "What is a safe way to use `git rebase`?"],
    ["Is it worth learning Rust these days?", "Is learning Rust worth it these days?"],
    ["How do I deal with stress at work?", "How should I handle stress at work? Why?"],
    ["What should I do when I feel lonely?", "What should I do if I feel lonely?"],
    ["What are the pros and cons of remote work?", "What are the pros and cons of working remotely?"],
    ["What are the symptoms of covid19?", "What symptoms does covid19 cause?"],
    ["Is a well-known and/or widely used tool better?", "Is a widely used and/or well-known tool better?"],
    ["Is 7 > 5 true?", "Is it true that 7 > 5?"],
    ["Plan a 3-day trip to Lisbon", "Plan a 3 day trip to Lisbon"],
    ["Plan a three day trip to Lisbon", "Plan a 3 day trip to Lisbon"],
    ["Plan a four-day trip to Lisbon", "Plan a trip of four days to Lisbon"],
    ["Explain recursion in one sentence", "Explain recursion in a single sentence"],
    ["What does this word mean?", "What is the meaning of this word?"],
    ["How do I insert a page break in Word?", "How can I add a page break in Word?"],
    ["How do I keep my dog from barking at night?", "How do I keep my dog from barking at nighttime?"],
  ])("%s ~ %s", (query, stored) => {
    expect(verdict(query, stored)).toEqual({ pass: true });
  });
});

describe("the precision guard stops answers to a different question", () => {
  test.each([
    ["number", "How many people in Norway are over 96 years old?", "How many people in Norway are over 94 years old?"],
    ["number word", "Why is my train one hour late?", "Why is my train four hours late?"],
    ["scaled number", "Best phone under 20k?", "Best phone under 30,000?"],
    ["year", "Who won the World Cup in 2014?", "Who won the World Cup in 2018?"],
    ["version", "What is new in Python 3.12.1?", "What is new in Python 3.11.4?"],
    ["negation", "Is coffee good for you?", "Is coffee not good for you?"],
    ["contracted negation", "Why does my code compile?", "Why doesn't my code compile?"],
    ["unit", "How many calories are in 100 grams of rice?", "How many calories are in 100 kg of rice?"],
    ["unit bound to the number", "How far is 5 km in miles?", "How far is 5 miles in km?"],
    ["currency", "Convert 100 dollars to euros", "Convert 100 pounds to euros"],
    ["name", "How do I install Docker on Ubuntu?", "How do I install Docker on Fedora?"],
    ["name at another position", "What did Einstein say about God?", "What did Newton say about God?"],
    ["acronym", "How do I prepare for the GRE?", "How do I prepare for the GMAT?"],
    ["identifier", "What does os.path.join() return?", "What does os.path.split() return?"],
    ["hash", "What is the SHA-256 of 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08?", "What is the SHA-256 of 60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752?"],
    ["order number", "Where is my order 4711ab93?", "Where is my order 4711ab94?"],
    ["comparison operator", "Is 7 > 5?", "Is 7 < 5?"],
    ["arithmetic operator", "What is 12 * 4?", "What is 12 / 4?"],
    ["number word joined by a hyphen", "Plan a four-day trip to Lisbon", "Plan a six-day trip to Lisbon"],
    ["digits joined by a hyphen", "Write a 300-word cover letter", "Write a 600-word cover letter"],
    ["length of text asked for", "Explain recursion in one sentence", "Explain recursion in one paragraph"],
    ["length in words or characters", "Summarise the plot in 50 words", "Summarise the plot in 50 characters"],
    ["quoted string", 'What does "carpe diem" mean?', 'What does "memento mori" mean?'],
    ["month", "What is the weather like in Rome in July?", "What is the weather like in Rome in January?"],
    ["time of day", "Is it better to exercise in the morning?", "Is it better to exercise at night?"],
    ["days of the week, plural", "Where can I park for free in Lyon on weekends?", "Where can I park for free in Lyon on weekdays?"],
    ["opposite", "What is the fastest sorting algorithm?", "What is the slowest sorting algorithm?"],
    ["comparison", "Which is bigger, a wolf or a husky?", "Which is smaller, a wolf or a husky?"],
    ["direction in time", "What should I eat before a run?", "What should I eat after a run?"],
    ["question word", "When was Marie Curie born?", "Where was Marie Curie born?"],
    ["ordinal", "Who was the first president of Kenya?", "Who was the third president of Kenya?"],
    ["pros and cons", "What are the advantages of nuclear power?", "What are the disadvantages of nuclear power?"],
  ])("%s: %s ≠ %s", (_kind, query, stored) => {
    const result = verdict(query, stored);
    expect(result.pass).toBe(false);
    // symmetric: whichever of the two was stored
    expect(verdict(stored, query).pass).toBe(false);
  });

  test("the reason names what differs", () => {
    expect(verdict("How do I install Docker on Ubuntu?", "How do I install Docker on Fedora?")).toEqual({ pass: false, check: "names", reason: 'name "ubuntu"' });
    expect(verdict("Is coffee good for you?", "Is coffee not good for you?")).toEqual({ pass: false, check: "negation", reason: "negation" });
  });
});

test("words that name Object's members (constructor, toString) are not numbers, units or ordinals", () => {
  for (const text of ["What does the constructor of a class do?", "Why does toString return [object Object]?", "When is valueOf called?"]) {
    const facts = promptFacts(text);
    expect([facts.numbers, [...facts.units], [...facts.poles.keys()].filter((axis) => axis !== "asks")]).toEqual([[], [], []]);
  }
});

test("every opposite-axis term is one lower-case word, as the guard looks them up word by word", () => {
  for (const poles of Object.values(AXES)) for (const term of poles.flat()) expect(term).toMatch(/^[\p{Ll}\p{N}]+$/u);
  expect(promptFacts("Which is the worst option?").poles.get("quality")).toEqual(new Set([1]));
});

describe("chooseMatch", () => {
  const candidate = (prompt: string, similarity: number) => ({ entry: prompt, prompt, similarity });

  test("takes the most similar candidate at or above the threshold", () => {
    const decision = chooseMatch("What is the capital of France?", [candidate("capital of France?", 0.91), candidate("What's the capital of France?", 0.97)], 0.9);
    expect(decision.hit?.prompt).toBe("What's the capital of France?");
  });

  test("skips a candidate the guard rejects and takes the next that agrees", () => {
    const decision = chooseMatch(
      "What is the capital of France?",
      [candidate("What is the capital of Germany?", 0.96), candidate("What's the capital city of France?", 0.93)],
      0.9,
    );
    expect(decision.hit?.prompt).toBe("What's the capital city of France?");
    expect(decision.rejected.map((r) => r.reason)).toEqual(['name "france"']);
  });

  test("nothing below the threshold", () => {
    expect(chooseMatch("a question", [candidate("a question", 0.89)], 0.9).hit).toBeUndefined();
  });

  test("facts computed ahead (the server's: the query's while the encoder ran, an entry's when it was stored) decide as computed ones do, and are asked for only when a candidate is in reach", () => {
    const candidates = [candidate("What is the capital of Germany?", 0.96), candidate("What's the capital city of France?", 0.93)];
    const query = "What is the capital of France?";
    const ahead = new Map(candidates.map((c) => [c.prompt, prepareForMatching(promptFacts(c.prompt))]));
    let asked = 0;
    const queryFacts = () => (asked++, prepareForMatching(promptFacts(query)));
    const decision = chooseMatch(query, candidates, 0.9, { factsOf: (c) => ahead.get(c.prompt)!, queryFacts });
    expect(decision).toEqual(chooseMatch(query, candidates, 0.9));
    expect(asked).toBe(1);
    // The facts handed in are the ones used: the Germany entry's, given as the query's, let it through.
    expect(chooseMatch(query, candidates, 0.9, { queryFacts: () => ahead.get("What is the capital of Germany?")! }).hit?.prompt).toBe("What is the capital of Germany?");
    expect(chooseMatch(query, [candidate("What is the capital of France?", 0.5)], 0.9, { queryFacts }).hit).toBeUndefined();
    expect(asked).toBe(1);
  });
});

describe("the parts the encoder reads only as [UNK]", () => {
  const readability = Readability.ofModel(assetPaths().modelDir);
  const judge = (query: string, stored: string) => guardMatch(promptFacts(query, readability), promptFacts(stored, readability));

  test("must be the same in both prompts; the reason names a few of them, briefly", () => {
    // Compared as the tokenizer sees them: lower case, marks stripped (so กัมพูชา shows as กมพชา).
    expect(judge("What is the capital of ไทย?", "What is the capital of กัมพูชา?")).toMatchObject({ pass: false, check: "unread", reason: "unread by the encoder: ไทย vs กมพชา" });
    expect(judge("What does 🦜 mean?", "What does 🦖 mean?")).toMatchObject({ pass: false, check: "unread" });
    expect(judge("Explain 🤗 Transformers", "Explain 🤗 Transformers please")).toEqual({ pass: true });
    expect(judge("How tall is the Eiffel tower?", "How tall is the Eiffel tower, really?")).toEqual({ pass: true });
    const long = "ภาษาไทยเป็นภาษาที่มีความซับซ้อนมากสำหรับผู้เรียนชาวต่างชาติ";
    const verdict = judge(`${long} 1`, "อะไรคือเมืองหลวงของประเทศไทย 1");
    expect(verdict).toMatchObject({ pass: false, check: "unread" });
    expect((verdict as { reason: string }).reason.length).toBeLessThan(80);
  });

  test("without a readability (tools that do not load the model) the check is skipped", () => {
    expect(guardMatch(promptFacts("What is the capital of ไทย?"), promptFacts("What is the capital of กัมพูชา?"))).toEqual({ pass: true });
  });
});
