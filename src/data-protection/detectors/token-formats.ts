import type { Detection } from "../model";

/**
 * Token formats that providers publish with a fixed prefix, where the recommended secretlint
 * preset (12.0.0, what is installed) has no rule or a narrower one than the tokens issued. The
 * prefix makes each of them a credential without any word next to it. Sources: the provider's
 * documentation (cited per entry); the other maintained scanners' rules (gitleaks, trufflehog)
 * where the provider does not publish the alphabet.
 */
const TOKEN_FORMATS: { rule: string; pattern: RegExp }[] = [
  // huggingface.co/docs/hub/security-tokens: user access tokens start with "hf_". secretlint
  // (as gitleaks) takes 34 letters only; the alphabet is not published and trufflehog's rule takes
  // letters and digits, so both are taken here.
  { rule: "huggingface:UserAccessToken", pattern: /hf_[A-Za-z0-9]{34}/g },
  // SendGrid's API key documentation: "SG." + 22-character id + "." + 43-character secret, both
  // base64url. secretlint's rule takes \w with at most one "-" or "_", so keys with more are missed.
  { rule: "sendgrid:ApiKey", pattern: /SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}/g },
  // docs.stripe.com/keys: secret and restricted keys, live and test mode (in the preset from
  // secretlint 13 on).
  { rule: "stripe:SecretKey", pattern: /[sr]k_(?:live|test)_[A-Za-z0-9]{24,99}/g },
  // pypi.org/help/#apitoken: "pypi-" + a macaroon whose base64 starts with the issuing host.
  { rule: "pypi:ApiToken", pattern: /pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,1000}/g },
  // docs.digitalocean.com (personal access, OAuth and refresh tokens): dop_v1_, doo_v1_, dor_v1_ + 64 hex.
  { rule: "digitalocean:Token", pattern: /do[opr]_v1_[a-f0-9]{64}/g },
  // cloud.google.com/docs/authentication/api-keys: "AIza" + 35 characters.
  { rule: "gcp:ApiKey", pattern: /AIza[A-Za-z0-9_-]{35}/g },
];

/** A token is a whole word: not the middle of a longer identifier or base64 run. */
const isWholeToken = (text: string, start: number, end: number) => !/[A-Za-z0-9_-]/.test(text[start - 1] ?? "") && !/[A-Za-z0-9_-]/.test(text[end] ?? "");

/** The prefixed provider tokens of TOKEN_FORMATS in a text. */
export function tokenFormatFindings(text: string): Detection[] {
  const found: Detection[] = [];
  for (const { rule, pattern } of TOKEN_FORMATS) {
    for (const match of text.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (isWholeToken(text, match.index, end)) found.push({ type: "secret", start: match.index, end, rule });
    }
  }
  return found;
}
