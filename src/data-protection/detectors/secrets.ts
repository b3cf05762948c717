import { lintSource } from "@secretlint/core";
import { secretLintProfiler } from "@secretlint/profiler";
import { creator as recommendedPreset } from "@secretlint/secretlint-rule-preset-recommend";
import type { Detector } from "../detector";
import type { Detection } from "../model";
import { tokenFormatFindings } from "./token-formats";

const SECRETLINT_CONFIG = {
  rules: [
    {
      id: "@secretlint/secretlint-rule-preset-recommend",
      rule: recommendedPreset,
      // Access key ids are off by default in secretlint (files often name them); in a prompt they are what leaks.
      rules: [{ id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } }],
    },
  ],
};

/**
 * secretlint marks the start and end of every rule in the process's performance timeline (about 56
 * marks a call), and its profiler keeps each mark and searches them linearly for every new one: in a
 * server that lints prompt after prompt both grew without bound, and a prompt's scan went from
 * ~0.1 ms to hundreds after a few thousand scans (docs/performance.md). Sieve never reads the profile.
 */
secretLintProfiler.mark = () => {};

/**
 * Every rule of the recommended preset needs one of these: a run of 16+ token characters (keys,
 * tokens, connection strings), user:password@ in a URL, or a PEM header. Texts without any skip
 * secretlint, whose fixed cost (~0.15 ms) would otherwise be most of a short prompt's.
 */
const MAY_HOLD_SECRET = /[A-Za-z0-9_\-+/=.]{16}|:\/\/[^\s/@]+:[^\s/@]*@|-----BEGIN/;

/** secretlint's rule id without its package prefix: "@secretlint/secretlint-rule-github" → "github". */
const ruleName = (ruleId: string, messageId: string) => `${ruleId.replace(/^@secretlint\/secretlint-rule-/, "")}:${messageId}`;

async function secretlintFindings(text: string): Promise<Detection[]> {
  if (!MAY_HOLD_SECRET.test(text)) return [];
  const result = await lintSource({
    source: { content: text, filePath: "/prompt.txt", ext: ".txt", contentType: "text" },
    options: { config: SECRETLINT_CONFIG as never },
  });
  return result.messages.map((message) => {
    let [start, end] = message.range as [number, number];
    if (message.messageId === "AWSSecretAccessKey") {
      // secretlint 12 reports this rule's range from the start of "aws_secret_access_key = …" with the key's
      // length, so it covers the name and half the key: the key itself is the 40 characters after the separator.
      const value = /[:=]\s*["']?([A-Za-z0-9/+=]{40})/.exec(text.slice(start, start + 120));
      if (value) {
        start += value.index + value[0].length - 40;
        end = start + 40;
      }
    }
    return { type: "secret", start, end, rule: ruleName(message.ruleId, message.messageId) };
  });
}

/**
 * Credential words (key, password, token, secret, credentials) in English and the languages of
 * the phone words (detectors/phone.ts: the EU's languages spoken first by ten million people or
 * more), and the copulas ("is", "ist", "è", …) that may stand between a word and its value.
 */
const CREDENTIAL_WORDS = [
  "api[_\\- ]?key", "access[_\\- ]?key(?:_id)?", "secret(?:[_\\- ]?key)?", "client[_\\- ]?secret", "token", "auth[_\\- ]?token", "bearer",
  "password", "passwd", "pwd", "passphrase", "credentials?", "private[_\\- ]?key",
  "schlüssel", "passwort", "kennwort", // German
  "clé", "cle", "mot de passe", // French
  "chiave", "segreto", // Italian
  "clave", "contraseña", "credencial", // Spanish
  "klucz", "hasło", // Polish
  "cheie", "parol[aă]", // Romanian
  "sleutel", "wachtwoord", // Dutch
  "κλειδί", "κωδικός", // Greek
  "kulcs", "jelszó", // Hungarian
  "chave", "senha", "palavra-passe", // Portuguese
  "klíč", "heslo", // Czech
  "nyckel", "lösenord", // Swedish
];
/** Password words: their values are checked as passwords (three character classes), not as random keys. */
const PASSWORD_WORD = /pass|pwd|passwort|kennwort|contraseña|hasło|parol|wachtwoord|κωδικός|jelszó|senha|heslo|lösenord/i;
const COPULAS = ["is", "ist", "est", "es", "è", "é", "är", "este", "jest", "je", "είναι"];
/**
 * A letter or digit of the words' scripts (Latin with its accented letters, Greek): what must not
 * stand right before or after a word. Written out because \b is ASCII-only ("clé" ended in no
 * word boundary) and the u flag's \p{L} made the scan several times slower.
 */
const WORD_CHAR = "A-Za-z0-9\\u00C0-\\u024F\\u0370-\\u03FF";
/** A credential word, then an assignment or a copula, then the value. */
const KEYWORD_VALUE = new RegExp(
  `(?<![${WORD_CHAR}])(?:${CREDENTIAL_WORDS.join("|")})(?![${WORD_CHAR}_])["']?\\s*(?:[:=]|=>|(?<![${WORD_CHAR}])(?:${COPULAS.join("|")})(?![${WORD_CHAR}]))?\\s*["'\`]?([^\\s"'\`,;)}\\]]{8,200})`,
  "gi",
);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function shannonBits(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/** A run of 16+ characters mixing letters and digits at a key's entropy: a generated value, not a name. */
const isRandomRun = (part: string) => part.length >= 16 && /\d/.test(part) && /[A-Za-z]/.test(part) && shannonBits(part) >= 3.5;

/**
 * A value assigned to a credential word that reads like a secret rather than code: not an
 * identifier, call or variable reference, not a placeholder, a UUID or a plain word; either random
 * looking (high entropy, letters and digits) or a password mixing three character classes.
 */
export function looksLikeSecretValue(value: string, keyword: string): boolean {
  if (/[()$<>{}[\]]|^\*+$|^x+$/i.test(value) || UUID.test(value)) return false;
  // os.environ, config.db.password; but not a token whose dotted parts hold a random run (Google's "ya29.…")
  if (/^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(value) && !value.split(".").some(isRandomRun)) return false;
  if (/^[A-Z][A-Z0-9_]*$/.test(value) || /^[a-z]+(?:[_\-][a-z]+)*$/.test(value)) return false; // API_KEY, my_password
  const classes = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  if (PASSWORD_WORD.test(keyword)) return value.length >= 8 && classes >= 3;
  return isRandomRun(value);
}

/**
 * Qualifiers that make a "token" a position in a listing, not a credential: pagination cursors as
 * APIs name them (Google's nextPageToken, AWS's NextToken, continuation and sync tokens) carry
 * encoded offsets that read as random as a key.
 */
const LISTING_POSITION = /(?:page|pagination|continuation|sync|cursor|resume|next)[_\- ]?$/i;

function keywordFindings(text: string): Detection[] {
  const found: Detection[] = [];
  for (const match of text.matchAll(KEYWORD_VALUE)) {
    if (/^token/i.test(match[0]) && LISTING_POSITION.test(text.slice(Math.max(0, match.index - 16), match.index))) continue;
    const value = match[1]!.replace(/[.!?]+$/, "");
    if (!looksLikeSecretValue(value, match[0])) continue;
    const start = match.index + match[0].lastIndexOf(match[1]!);
    found.push({ type: "secret", start, end: start + value.length, rule: "keyword_value" });
  }
  return found;
}

/**
 * Secrets and credentials: secretlint's recommended rule set, providers' prefixed token formats it
 * lacks, and high-entropy values next to credential words.
 */
export const secretDetector: Detector = {
  type: "secret",
  async detect(text) {
    return [...(await secretlintFindings(text)), ...tokenFormatFindings(text), ...keywordFindings(text)];
  },
};
