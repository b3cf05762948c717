/**
 * Word lists of the precision guard (see guard.ts): the small, closed classes of words that
 * decide what an answer is about even when the rest of the question is worded the same.
 */

// The word tables below have no prototype: they are looked up by arbitrary words of a prompt, and
// "constructor" or "toString" must not find Object's members (a number, a unit, an ordinal).

/** Spelled-out numbers, as their digits, so "four days" and "4 days" compare equal. */
export const NUMBER_WORDS: Record<string, number> = Object.assign(Object.create(null), {
  zero: 0, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
  hundred: 100, thousand: 1000, million: 1e6, billion: 1e9, trillion: 1e12,
  dozen: 12, half: 0.5, twice: 2, double: 2, triple: 3,
});

/** Ordinals (not "second", which is as often a unit of time); compared like an axis: "first" / "third" differ, "first" / nothing does not. */
export const ORDINAL_WORDS: Record<string, number> = Object.assign(Object.create(null), {
  first: 1, third: 3, fourth: 4, fifth: 5, sixth: 6, seventh: 7, eighth: 8, ninth: 9, tenth: 10, eleventh: 11, twelfth: 12, hundredth: 100,
});

/** "one" (and "single") is a number only before a unit ("one day late", "a single sentence"); elsewhere a pronoun ("which one") or an adjective. */
export const ONE = new Set(["one", "single"]);

/** Suffixes that scale a number: 30k, 2.5m, 3bn. */
export const NUMBER_SCALES: Record<string, number> = Object.assign(Object.create(null), { k: 1e3, m: 1e6, mn: 1e6, bn: 1e9, b: 1e9 });

/** Units and currencies, each spelling mapped to one canonical name. */
export const UNITS: Record<string, string> = Object.assign(
  Object.create(null),
  Object.fromEntries(
    Object.entries({
      km: ["km", "kms", "kilometer", "kilometers", "kilometre", "kilometres"],
      mile: ["mile", "miles", "mi"],
      meter: ["meter", "meters", "metre", "metres"],
      cm: ["cm", "centimeter", "centimeters", "centimetre", "centimetres"],
      mm: ["mm", "millimeter", "millimeters", "millimetre", "millimetres"],
      inch: ["inch", "inches"],
      foot: ["ft", "foot", "feet"],
      yard: ["yard", "yards", "yd"],
      kg: ["kg", "kgs", "kilo", "kilos", "kilogram", "kilograms"],
      gram: ["gram", "grams", "gm", "gms"],
      pound: ["lb", "lbs", "pound", "pounds"],
      ounce: ["oz", "ounce", "ounces"],
      ton: ["ton", "tons", "tonne", "tonnes"],
      liter: ["l", "liter", "liters", "litre", "litres"],
      ml: ["ml", "milliliter", "milliliters", "millilitre", "millilitres"],
      gallon: ["gallon", "gallons"],
      celsius: ["celsius", "°c", "centigrade"],
      fahrenheit: ["fahrenheit", "°f"],
      kelvin: ["kelvin"],
      degree: ["degree", "degrees", "°"],
      percent: ["percent", "percentage", "%"],
      usd: ["usd", "dollar", "dollars", "$", "bucks"],
      eur: ["eur", "euro", "euros", "€"],
      gbp: ["gbp", "£", "sterling"],
      inr: ["inr", "rs", "rupee", "rupees", "₹"],
      jpy: ["jpy", "yen", "¥"],
      cny: ["cny", "yuan", "rmb"],
      btc: ["btc", "bitcoin", "bitcoins"],
      second: ["seconds", "sec", "secs"],
      minute: ["minutes", "mins"],
      hour: ["hour", "hours", "hr", "hrs"],
      day: ["day", "days"],
      week: ["week", "weeks"],
      month: ["month", "months"],
      year: ["year", "years", "yr", "yrs"],
      decade: ["decade", "decades"],
      century: ["century", "centuries"],
      mph: ["mph"],
      kmh: ["kmh", "kph", "km/h"],
      byte: ["byte", "bytes"],
      kb: ["kb", "kilobyte", "kilobytes"],
      mb: ["mb", "megabyte", "megabytes"],
      gb: ["gb", "gigabyte", "gigabytes"],
      tb: ["tb", "terabyte", "terabytes"],
      hz: ["hz", "hertz"],
      mhz: ["mhz", "megahertz"],
      ghz: ["ghz", "gigahertz"],
      watt: ["w", "watt", "watts"],
      kw: ["kw", "kilowatt", "kilowatts"],
      kwh: ["kwh"],
      volt: ["v", "volt", "volts"],
      amp: ["amp", "amps", "ampere", "amperes"],
      calorie: ["calorie", "calories", "kcal", "cal"],
      // Lengths of a text asked for: "in one sentence" / "in one paragraph", "in 100 words".
      word: ["word", "words"],
      sentence: ["sentence", "sentences"],
      paragraph: ["paragraph", "paragraphs"],
      line: ["line", "lines"],
      page: ["page", "pages"],
      character: ["character", "characters", "chars"],
      bullet: ["bullet", "bullets"],
    }).flatMap(([canonical, spellings]) => spellings.map((spelling) => [spelling, canonical])),
  ),
);

/** What a question asks for, when it opens a sentence: "When was …" / "Where was …" differ. */
export const QUESTION_WORDS: string[][] = [["who", "whom", "whose"], ["when"], ["where"], ["why"], ["how many", "how much"], ["how long"], ["how old"], ["how far"], ["how often"]];

/**
 * Units that are also ordinary words ("these days", "what does this word mean"): units of time
 * and lengths of text. They count only with a number or a quantity word before them.
 */
export const WORD_UNITS = new Set(["second", "minute", "hour", "day", "week", "month", "year", "decade", "century", "word", "sentence", "paragraph", "line", "page", "character", "bullet"]);
export const QUANTITY_WORDS = new Set(["many", "per", "few", "several", "couple", "every", "each", "next", "last", "past"]);

/** Single-letter unit spellings count only right after a number ("5 l", "230 v"), never alone. */
export const BOUND_ONLY_UNITS = new Set(["l", "w", "v", "mi", "cal", "°", "degree", "degrees"]);

/** Words that fix the time an answer is about. */
export const TEMPORAL_WORDS = new Set([
  "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december",
  "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
  "today", "tomorrow", "yesterday", "tonight", "morning", "afternoon", "evening", "night", "weekend", "weekday",
  "spring", "summer", "autumn", "winter",
]);

export const NEGATIONS = new Set([
  "not", "no", "never", "none", "nobody", "nothing", "nowhere", "neither", "nor", "without", "cannot",
  // contractions typed without the apostrophe
  "dont", "doesnt", "didnt", "cant", "couldnt", "shouldnt", "wouldnt", "wont", "isnt", "arent", "wasnt", "werent", "havent", "hasnt", "hadnt", "aint",
]);

/**
 * Opposites: each axis lists its poles. WordNet's antonym pairs (antonyms.ts) cover direct
 * opposites; an axis is kept here only where it groups near-synonyms into a pole, which pairs do
 * not ("good" / "worst", "pros" / "drawbacks": under a third of such cross-pole pairs are in
 * WordNet). Axes WordNet covers entirely (speed, heat) were removed. Two questions that both use an axis must use the same
 * poles ("best" / "worst", "over 18" / "under 18", "when" / "where"); one that does not use it
 * at all is not contradicted ("the best way to …" / "a good way to …"). Terms are single lower-case
 * words (looked up word by word).
 */
export const AXES: Record<string, string[][]> = {
  quality: [["best", "better", "good", "great", "greatest", "top", "favorite", "favourite"], ["worst", "worse", "bad", "poor", "terrible", "awful"]],
  amount: [
    ["more", "most", "many", "much", "increase", "increasing", "higher", "highest", "maximum", "max", "greater", "larger", "largest", "bigger", "biggest", "over", "above", "exceed", "exceeds"],
    ["less", "least", "fewer", "fewest", "few", "little", "decrease", "decreasing", "lower", "lowest", "minimum", "min", "smaller", "smallest", "under", "below"],
  ],
  size: [["big", "large", "huge", "tall", "long", "longer", "longest", "taller", "tallest"], ["small", "tiny", "short", "shorter", "shortest"]],
  price: [["expensive", "costly", "pricier"], ["cheap", "cheaper", "cheapest", "inexpensive", "affordable"]],
  difficulty: [["easy", "easier", "easiest", "simple", "simplest"], ["hard", "harder", "hardest", "difficult", "tough"]],
  age: [["old", "older", "oldest", "elder", "eldest"], ["young", "younger", "youngest", "new", "newer", "newest"]],
  order: [["before", "earlier", "prior"], ["after", "later", "afterwards"]],
  sequence: [["next", "upcoming", "following"], ["last", "previous", "past"]],
  state: [["start", "begin", "enable", "open"], ["stop", "disable", "shut"]],
  change: [["add", "insert", "install", "create", "gain"], ["remove", "delete", "uninstall", "destroy", "lose"]],
  trade: [["buy", "buying", "purchase", "import", "download", "receive"], ["sell", "selling", "export", "upload", "send"]],
  merit: [["advantage", "advantages", "pros", "benefit", "benefits", "positive"], ["disadvantage", "disadvantages", "cons", "drawback", "drawbacks", "negative"]],
  truth: [["true", "right", "correct"], ["false", "wrong", "incorrect"]],
  outcome: [["win", "won", "winning", "pass", "passed", "success"], ["lose", "lost", "losing", "fail", "failed", "failure"]],
  cipher: [["encrypt", "encode", "compress"], ["decrypt", "decode", "decompress"]],
  flow: [["input", "inbound", "incoming"], ["output", "outbound", "outgoing"]],
  compass: [["north", "northern"], ["south", "southern"], ["east", "eastern"], ["west", "western"]],
  sex: [["male", "man", "men", "boy", "boys", "boyfriend", "husband", "he", "him", "his", "father", "son"], ["female", "woman", "women", "girl", "girls", "girlfriend", "wife", "she", "her", "hers", "mother", "daughter"]],
};

/** Lower-case words that start sentences or are capitalised for grammar, not because they name something. */
export const NOT_NAMES = new Set(["i", "i'm", "i've", "i'd", "i'll", "ok", "okay"]);

/**
 * Particles of phrasal verbs and their opposites ("turn on" / "turn off", "zoom in" / "zoom out",
 * "the lights on" / "the lights off"): opposed only behind the same word, since "in" and "out"
 * alone are mostly prepositions ("the columns in the table" / "find out how many columns").
 * WordNet lists none of them as antonyms.
 */
// No prototype: looked up by arbitrary words, and "constructor" must not find Object.
export const PARTICLE_OPPOSITES: Record<string, string> = Object.assign(Object.create(null), { in: "out", out: "in", on: "off", off: "on", up: "down", down: "up" });

/**
 * Opposites WordNet does not list (checked against wordnet-antonyms.json: none of these is
 * there): computing pairs, and irregular forms of its verbs (the npm package ships no exception
 * lists: "bought" / "sold").
 */
export const EXTRA_OPPOSITES = [
  "max|min", "speed up|slow down", "warm up|cool down", "expand|collapse", "merge|split", "join|split", "allow|block", "whitelist|blacklist",
  "allowlist|denylist", "upper|lower", "read|write", "compress|extract", "hire|fire", "promote|demote", "bought|sold",
  "sent|received", "lent|borrowed", "push|pop", "prefix|suffix",
];

/**
 * Adjectives that narrow nothing in a question ("some good tips", "my own question", "the best
 * way"): not counted as modifiers by the scope check (scope.ts). Quantity and quality words live
 * in AXES and QUANTITY_WORDS, which compare them on their own.
 */
export const UNNARROWING_MODIFIERS = new Set([
  "some", "any", "own", "other", "same", "such", "certain", "various", "different", "specific", "particular", "possible", "real",
  "actual", "good", "better", "best", "great", "nice", "top", "main", "whole", "entire", "full", "complete", "new", "many", "few",
  "much", "more", "most", "several", "simple", "easy", "quick", "basic", "proper", "right", "correct", "exact", "important", "useful",
  "effective", "efficient", "interesting", "common", "usual", "general", "overall", "following", "above", "next", "last", "first",
  "like", "favourite", "favorite", "amazing", "awesome", "cool", "coolest", "greatest", "funny", "funniest", "famous", "popular",
]);
