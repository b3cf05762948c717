/** Benign filler prose for long-document tests (written for these tests), optionally with one sentence buried in the middle. */
const SENTENCES = [
  "The community garden opened its gates in early spring, and volunteers arrived with spades and seedlings.",
  "Tomatoes need at least six hours of direct sunlight every day to ripen well.",
  "Mulching the beds with straw keeps the soil moist during the hot weeks of July.",
  "The old stone wall along the north side was rebuilt by a local mason last autumn.",
  "Children from the nearby school planted sunflowers that grew taller than their teachers.",
  "Compost is turned every two weeks so that the heap stays warm and breaks down evenly.",
  "A rain barrel under the shed roof collects enough water for the herb bed.",
  "Bees visit the lavender rows from mid-morning until the late afternoon.",
  "Every Saturday the harvest is weighed and shared between the families who tend the plots.",
  "Slugs are kept away with copper tape around the lettuce boxes rather than with pellets.",
  "The autumn fair raised enough money to buy a second wheelbarrow and a new hose.",
  "Winter squash is stored in the cool cellar of the community hall until February.",
];

/** About `tokens` tokens of filler; `buried` (if given) is placed in the middle. */
export function longDocument(tokens: number, buried?: string): string {
  const sentences: string[] = [];
  let estimate = 0;
  for (let i = 0; estimate < tokens; i++) {
    const sentence = `${SENTENCES[i % SENTENCES.length]!.slice(0, -1)} (note ${i + 1}).`;
    sentences.push(sentence);
    estimate += sentence.split(/\s+/).length * 1.3;
  }
  if (buried) sentences.splice(Math.floor(sentences.length / 2), 0, buried);
  return sentences.join(" ");
}
