/**
 * Words that attacks tend to use, in the languages the built-in library covers. Used only to
 * decide which windows of a long text are embedded first when a request's window budget cannot
 * cover all of them (planWindows in scan.ts); never to decide a verdict.
 */
const CUE_WORDS = [
  // English
  "ignore", "ignoring", "disregard", "forget", "override", "overrides", "bypass", "instruction", "instructions", "prompt", "prompts",
  "system", "rules", "guidelines", "policy", "policies", "restrictions", "restricted", "unrestricted", "filter", "filters", "unfiltered",
  "censorship", "uncensored", "jailbreak", "jailbroken", "dan", "developer", "pretend", "roleplay", "role-play", "persona", "character",
  "reveal", "verbatim", "repeat", "password", "secret", "confidential", "admin", "administrator", "assistant", "ai", "chatgpt", "openai",
  "previous", "above", "earlier", "new task", "from now on", "you are now", "act as", "no longer", "stop", "instead",
  // German, French, Spanish, Italian, Portuguese, Dutch
  "ignoriere", "ignorieren", "vergiss", "anweisung", "anweisungen", "regeln", "passwort", "aufgabe", "rolle", "systemprompt", "vorherigen",
  "ignorez", "ignore", "oublie", "oubliez", "consignes", "règles", "mot de passe", "précédentes",
  "ignora", "olvida", "instrucciones", "reglas", "contraseña", "anteriores",
  "istruzioni", "regole", "precedenti", "instruções", "regras", "senha", "negeer", "instructies",
];

const CUE_PATTERN = new RegExp(
  `(?<![\\p{L}\\p{N}])(?:${CUE_WORDS.map((w) => w.replace(/ /g, "\\s+")).join("|")})(?![\\p{L}\\p{N}])|忽略|指令|提示词|無視|指示|игнорир|инструкц`,
  "giu",
);

/** How many distinct cue words a text contains. */
export function cueScore(text: string): number {
  const seen = new Set<string>();
  for (const [match] of text.matchAll(CUE_PATTERN)) seen.add(match.toLowerCase().replace(/\s+/g, " "));
  return seen.size;
}
