/**
 * bun scripts/eval/data-protection-gen.ts — writes scripts/eval/data/data-protection.jsonl, the
 * labelled set of the data protection eval: synthetic but format-valid secrets and personal data
 * inside prompts, code, logs, e-mails and JSON in five languages (entities with their spans), and
 * ordinary text that looks similar (UUIDs, hashes, versions, order numbers, timestamps, published
 * test card numbers, code handling passwords) labelled with no entity. Seeded: the same file every run.
 *
 * Written from the formats' own definitions (issuer prefixes, Luhn, mod-97, SSA ranges, the token
 * shapes providers document), not from the detectors: some values are written in ways the
 * detectors do not look for (national phone numbers outside North America, keys without a
 * credential word near them), and they count as misses.
 */
import { composeIBAN, isValidIBAN } from "ibantools";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export type Sample = { id: string; kind: "entity" | "ordinary"; text: string; entities: { type: string; start: number; end: number }[] };

let seed = 20261129;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const int = (lo: number, hi: number) => lo + Math.floor(rand() * (hi - lo + 1));
const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join("");
const DIGITS = "0123456789";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const HEX = "0123456789abcdef";

function luhnComplete(partial: string): string {
  for (let d = 0; d < 10; d++) {
    const digits = partial + d;
    let sum = 0;
    for (let i = 0; i < digits.length; i++) {
      let x = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) x = x * 2 > 9 ? x * 2 - 9 : x * 2;
      sum += x;
    }
    if (sum % 10 === 0) return digits;
  }
  throw new Error("unreachable");
}

const values: Record<string, () => string> = {
  secret: () =>
    pick([
      () => "AKIA" + chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
      () => "ghp_" + chars(ALNUM, 36),
      () => `xoxb-${chars(DIGITS, 12)}-${chars(DIGITS, 13)}-${chars(ALNUM, 24)}`,
      () => "glpat-" + chars(ALNUM + "-_", 20),
      () => `npm_${chars(ALNUM, 36)}`,
      () => `postgres://app_user:${chars(ALNUM, 14)}@db.internal.example.net:5432/orders`,
      () => `-----BEGIN RSA PRIVATE KEY-----\nMIIEow${chars(ALNUM + "+/", 58)}\n${chars(ALNUM + "+/", 64)}\n-----END RSA PRIVATE KEY-----`,
      () => "sk_live_" + chars(ALNUM, 24),
      () => chars(ALNUM, 32),
    ])(),
  email: () => {
    const first = pick(["anna", "jan", "marie", "luis", "olga", "tom", "sofia", "kenji", "amelie", "piotr"]);
    const last = pick(["berg", "nowak", "dubois", "garcia", "schmidt", "smith", "rossi", "tanaka", "muller", "kowalski"]);
    const local = pick([`${first}.${last}`, `${first}${int(1, 99)}`, `${first}+billing`, `${first[0]}${last}`, `${first}_${last}`]);
    return `${local}@${pick(["example.com", "mail.example.org", "firma-beispiel.de", "exemple.fr", "corp.example.co.uk", "empresa.es"])}`;
  },
  phone: () =>
    pick([
      () => `+1 ${pick(["206", "303", "512", "646", "702", "919", "213", "404"])}-555-01${int(10, 99)}`,
      () => `(${pick(["212", "415", "312", "617"])}) 555-01${int(10, 99)}`,
      () => `+44 20 7946 0${int(100, 999)}`,
      () => `+49 30 ${int(1000000, 9999999)}`,
      () => `+33 1 ${int(10, 99)} ${int(10, 99)} ${int(10, 99)} ${int(10, 99)}`,
      () => `+48 22 ${int(100, 999)} ${int(10, 99)} ${int(10, 99)}`,
      () => `030 ${int(1000000, 9999999)}`,
      () => `01 ${int(40, 49)} ${int(10, 99)} ${int(10, 99)} ${int(10, 99)}`,
    ])(),
  credit_card: () => {
    const [prefix, length] = pick([["4", 16], ["51", 16], ["55", 16], ["2221", 16], ["34", 15], ["37", 15], ["6011", 16]] as const);
    const pan = luhnComplete(prefix + chars(DIGITS, length - prefix.length - 1));
    const sep = pick(["", " ", "-"]);
    return length === 15 ? [pan.slice(0, 4), pan.slice(4, 10), pan.slice(10)].join(sep) : pan.match(/.{4}/g)!.join(sep);
  },
  iban: () => {
    for (;;) {
      const [country, bban] = pick([["DE", () => chars(DIGITS, 18)], ["GB", () => chars(UPPER, 4) + chars(DIGITS, 14)], ["NL", () => chars(UPPER, 4) + chars(DIGITS, 10)], ["FR", () => chars(DIGITS, 23)], ["PL", () => chars(DIGITS, 24)]] as const);
      const iban = composeIBAN({ countryCode: country, bban: bban() });
      if (iban && isValidIBAN(iban)) return rand() < 0.5 ? iban : iban.match(/.{1,4}/g)!.join(" ");
    }
  },
  ip_address: () =>
    pick([
      () => `${int(11, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
      () => `192.168.${int(0, 255)}.${int(1, 254)}`,
      () => `2001:db8:${chars(HEX, 4)}:${chars(HEX, 4)}::${chars(HEX, 3)}`,
      () => Array.from({ length: 8 }, () => chars(HEX, 4)).join(":"),
    ])(),
  us_ssn: () => {
    let area = int(1, 899);
    if (area === 666) area = 667;
    return `${String(area).padStart(3, "0")}-${String(int(1, 99)).padStart(2, "0")}-${String(int(1, 9999)).padStart(4, "0")}`;
  },
};

/** Templates: {v} is the value; several languages and kinds of text. */
const TEMPLATES: Record<string, string[]> = {
  secret: [
    "Here is my config, why does the upload fail?\n\nAWS_ACCESS_KEY_ID={v}\nAWS_REGION=eu-west-1",
    "const client = new Client({ token: \"{v}\" });",
    "Kannst du mir helfen? Mein Token ist {v} und die API antwortet mit 401.",
    "Voici la clé : {v} — elle ne marche plus depuis hier.",
    "export GITHUB_TOKEN={v}\ngit push origin main",
    '{"service": "billing", "api_key": "{v}", "retries": 3}',
    "2024-05-01 12:00:03 ERROR auth failed for secret={v} host=api-7",
    "Hola, uso esta credencial {v} en producción, ¿está bien?",
    "connection string: {v}",
    "Please review this key file:\n{v}\nThanks",
  ],
  email: [
    "Please draft a reply to {v} saying the invoice was paid.",
    "From: {v}\nSubject: Meeting moved\n\nHi team, the meeting is now at 3 pm.",
    "Bitte schreibe eine freundliche Absage an {v}.",
    "Merci d'envoyer le contrat à {v} avant vendredi.",
    '{"user": {"email": "{v}", "plan": "pro"}}',
    "2024-05-02T08:15:00Z INFO password reset requested for {v}",
    "Por favor, responde a {v} con el presupuesto.",
    "Proszę o kontakt: {v}",
  ],
  phone: [
    "Call the customer back at {v} tomorrow morning.",
    "Bitte rufen Sie mich unter {v} zurück.",
    "Vous pouvez me joindre au {v}.",
    '{"contact": {"phone": "{v}"}}',
    "Support hotline: {v} (Mon-Fri)",
    "Llámame al {v} cuando puedas.",
  ],
  credit_card: [
    "My card {v} was charged twice, can you write a complaint?",
    "Zahlung mit Karte {v} fehlgeschlagen.",
    '{"payment": {"card_number": "{v}", "exp": "04/27"}}',
    "2024-05-03 10:01:22 WARN declined card={v} amount=129.00",
    "Le paiement avec la carte {v} a été refusé.",
  ],
  iban: [
    "Please transfer the deposit to {v}.",
    "Bitte überweisen Sie den Betrag auf {v}.",
    "Merci de virer le montant sur le compte {v}.",
    '{"payout": {"iban": "{v}", "currency": "EUR"}}',
    "Proszę o przelew na konto {v}.",
  ],
  ip_address: [
    "Why can't I SSH into {v}? It times out.",
    "2024-05-04 11:11:11 WARN too many requests from {v}",
    "Der Server {v} antwortet nicht mehr.",
    '{"client_ip": "{v}", "path": "/login"}',
    "nginx: upstream {v}:8080 refused the connection",
  ],
  us_ssn: [
    "The applicant's SSN is {v}, please fill in the form.",
    "SSN: {v}\nDOB: 1984-03-12",
    '{"employee": {"ssn": "{v}"}}',
    "Verify social security number {v} for the background check.",
  ],
};

const ORDINARY = [
  () => `Request ${chars(HEX, 8)}-${chars(HEX, 4)}-4${chars(HEX, 3)}-a${chars(HEX, 3)}-${chars(HEX, 12)} finished in ${int(10, 900)} ms.`,
  () => `commit ${chars(HEX, 40)}\nAuthor: CI bot\n\n    bump dependencies`,
  () => `sha256: ${chars(HEX, 64)}  release.tar.gz`,
  () => `Upgrade from version ${int(1, 9)}.${int(0, 20)}.${int(0, 30)} to ${int(1, 9)}.${int(0, 20)}.${int(0, 30)} fixed the crash.`,
  () => `Windows build 10.0.${int(17000, 22999)}.${int(1, 999)} is affected.`,
  () => `Ihre Bestellung Nr. ${chars(DIGITS, 10)} wurde am ${int(1, 28)}.0${int(1, 9)}.2024 versandt.`,
  () => `Order #${chars(DIGITS, 8)} shipped; tracking ${chars(UPPER, 2)}${chars(DIGITS, 9)}DE.`,
  () => `2024-0${int(1, 9)}-${int(10, 28)}T${int(10, 23)}:${int(10, 59)}:${int(10, 59)}.${chars(DIGITS, 3)}Z INFO worker started pid=${int(1000, 65000)}`,
  () => `For testing use the card ${pick(["4242 4242 4242 4242", "4111 1111 1111 1111", "5555 5555 5555 4444", "3782 822463 10005"])} with any future date.`,
  () => `if (password.length < ${int(8, 12)}) throw new Error("password too short");`,
  () => `password = request.form["password"]\nif not check_password_hash(user.password_hash, password):\n    abort(401)`,
  () => `const apiKey = process.env.OPENAI_API_KEY;\nif (!apiKey) throw new Error("missing API key");`,
  () => `Set the token in your environment: export API_TOKEN=<your-token-here>`,
  () => `The meeting is at ${int(10, 18)}:${pick(["00", "15", "30", "45"])}:00 in room ${int(100, 499)}.`,
  () => `ISBN 978-${int(0, 9)}-${int(10, 99)}-${int(100000, 999999)}-${int(0, 9)} is out of print.`,
  () => `Invoice INV-2024-${chars(DIGITS, 6)} totals ${int(10, 999)}.${int(10, 99)} EUR.`,
  () => `Koordinaten: ${int(10, 60)}.${chars(DIGITS, 4)}, ${int(1, 30)}.${chars(DIGITS, 4)}`,
  () => `The cache key is ${chars(HEX, 32)} and expires in ${int(1, 60)} minutes.`,
  () => `Le colis ${chars(DIGITS, 13)} est en cours de livraison.`,
  () => `Die Artikelnummer ${chars(DIGITS, 4)}-${chars(DIGITS, 2)}-${chars(DIGITS, 4)} ist nicht lieferbar.`,
  () => `Our password policy requires 12 characters; the reset token expires after 24 hours.`,
  () => `docker run -p 8080:8080 -e LOG_LEVEL=debug registry.example.com/team/app:${int(1, 5)}.${int(0, 9)}.${int(0, 9)}`,
  () => `MAC address 00:1A:${chars("ABCDEF0123456789", 2)}:${chars("ABCDEF0123456789", 2)}:4D:5E on port ${int(1, 48)}`,
  () => `Ticket ${chars(UPPER, 3)}-${int(1000, 9999)}: the login page shows a blank screen on Safari.`,
  () => `Base64 of the logo: iVBORw0KGgo${chars(ALNUM, 40)}`,
];

export function generate(): Sample[] {
  const samples: Sample[] = [];
  for (const [type, templates] of Object.entries(TEMPLATES)) {
    for (let i = 0; i < 120; i++) {
      const template = pick(templates);
      const value = values[type]!();
      const start = template.indexOf("{v}");
      samples.push({ id: `${type}-${i}`, kind: "entity", text: template.replace("{v}", value), entities: [{ type, start, end: start + value.length }] });
    }
  }
  for (let i = 0; i < 1000; i++) samples.push({ id: `ordinary-${i}`, kind: "ordinary", text: pick(ORDINARY)(), entities: [] });
  return samples;
}

export const DATA_FILE = join(import.meta.dir, "data", "data-protection.jsonl");

if (import.meta.main) {
  const samples = generate();
  writeFileSync(DATA_FILE, samples.map((s) => JSON.stringify(s)).join("\n") + "\n");
  console.log(`wrote ${samples.length} samples to ${DATA_FILE}`);
}
