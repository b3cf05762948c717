/**
 * bun scripts/eval/data-protection-gen.ts — writes the three labelled splits of the data protection
 * eval: scripts/eval/data/data-protection.jsonl ("dev", below), data-protection-heldout.jsonl
 * ("held-out": another seed, other templates, locales and look-alikes; see HELDOUT_VALUES) and
 * data-protection-fresh.jsonl ("fresh": written after held-out's misses had been read, from yet
 * other formats, countries, languages and look-alikes; see FRESH_VALUES; nobody reads its errors).
 * Dev: synthetic but format-valid secrets and personal data inside prompts, code, logs, e-mails
 * and JSON in five languages (entities with their spans), and
 * ordinary text that looks similar (UUIDs, hashes, versions, order numbers, timestamps, published
 * test card numbers, code handling passwords) labelled with no entity. Seeded: the same files every run.
 *
 * Written from the formats' own definitions (issuer prefixes, Luhn, mod-97, SSA ranges, the token
 * shapes providers document), not from the detectors: some values are written in ways the
 * detectors do not look for (national phone numbers without a phone word, keys without a
 * credential word near them), and they count as misses.
 *
 * An IPv6 address followed by a port is written in brackets ("[2001:db8::1]:8080", RFC 3986's
 * host syntax) since issue 50's second round; dev wrote it bare before, which is another, longer
 * valid address, so 11 of its 120 ip_address labels did not say what the text said. The splits are
 * not committed (scripts/eval/data/ is ignored): the eval makes them in memory, the same every run.
 */
import { composeIBAN, isValidIBAN } from "ibantools";
import { mkdirSync, writeFileSync } from "node:fs";
import { isValidPhoneNumber } from "libphonenumber-js";
import { join } from "node:path";

export type Sample = { id: string; kind: "entity" | "ordinary"; text: string; entities: { type: string; start: number; end: number }[] };

/** The splits' seeds: dev is the set the detectors were developed against, held-out and fresh are only measured. */
const SEEDS = { dev: 20261129, heldout: 7340917, fresh: 5517293 } as const;
export type Split = keyof typeof SEEDS;
/** The regions each split's phone numbers come from: what a workspace serving those countries sets as data_protection.phone_regions. */
export const PHONE_REGIONS: Record<Split, string[]> = {
  dev: ["US", "GB", "DE", "FR", "PL"],
  heldout: ["IT", "NL", "ES", "US", "GB", "DE", "FR", "AU", "SE", "CH"],
  fresh: ["PL", "BE", "AT", "IE", "DK", "NO", "CZ", "PT", "CA", "MX", "JP", "BR"],
};
let seed: number = SEEDS.dev;
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

/** A Luhn-valid card number of one of the brands ([prefix, length]), grouped as printed: 4-6-5 / 4-6-4 for 15 and 14 digits, fours otherwise. */
function cardNumber(brands: (readonly [string, number])[]): string {
  const [prefix, length] = pick(brands);
  const pan = luhnComplete(prefix + chars(DIGITS, length - prefix.length - 1));
  const sep = pick(["", " ", "-"]);
  return length < 16 ? [pan.slice(0, 4), pan.slice(4, 10), pan.slice(10)].join(sep) : pan.match(/.{4}/g)!.join(sep);
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
  credit_card: () => cardNumber([["4", 16], ["51", 16], ["55", 16], ["2221", 16], ["34", 15], ["37", 15], ["6011", 16]]),
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

/**
 * The held-out split: other providers' key shapes, other countries' phone numbers, cards, IBANs and
 * address notations, other templates (signatures, CSV, HTML, shell, YAML, logs) in English, German,
 * Italian, Dutch, Portuguese and Swedish, and other look-alikes (numbers next to words like "call"
 * and "phone" that are not phone numbers). Written once, before the phone detector's national
 * numbers were added; the detectors are not tuned on it (issue 50's second round read its misses once
 * and answered them with general lists: phone words, provider token formats).
 */
const HELDOUT_VALUES: Record<string, () => string> = {
  secret: () =>
    pick([
      () => `sk-${chars(ALNUM, 20)}T3BlbkFJ${chars(ALNUM, 20)}`,
      () => `sk-ant-api03-${chars(ALNUM + "-_", 93)}AA`,
      () => `xoxp-${chars(DIGITS, 11)}-${chars(DIGITS, 12)}-${chars(DIGITS, 13)}-${chars(HEX, 32)}`,
      () => `hf_${chars(ALNUM, 34)}`,
      () => `SG.${chars(ALNUM + "-_", 22)}.${chars(ALNUM + "-_", 43)}`,
      () => `shpat_${chars(HEX, 32)}`,
      () => `github_pat_${chars(ALNUM, 22)}_${chars(ALNUM, 59)}`,
      () => `mysql://shop:${chars(ALNUM, 12)}@10.0.${int(0, 255)}.${int(1, 254)}:3306/shop`,
      () => `AKIA${chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`,
      () => chars(ALNUM + "+/", 40),
    ])(),
  email: () => {
    const first = pick(["giulia", "bram", "ines", "lars", "chiara", "joao", "femke", "erik", "beatriz", "matteo"]);
    const last = pick(["bianchi", "de.vries", "santos", "lindqvist", "jansen", "ferreira", "conti", "andersson"]);
    const local = pick([`${first}.${last}`, `${first[0]}.${last}`, `${last}${int(1, 9)}`, `${first}-${last}`, "info", "noreply+orders"]);
    return `${local}@${pick(["studio-esempio.it", "voorbeeld.nl", "exemplo.com.br", "foretag.example.se", "uni-example.ac.at", "shop.example.io"])}`;
  },
  phone: () => {
    for (;;) {
      const [country, make] = pick([
        ["IT", () => `+39 06 ${int(1000, 9999)} ${int(1000, 9999)}`],
        ["NL", () => `+31 20 ${int(100, 999)} ${int(1000, 9999)}`],
        ["ES", () => `+34 ${pick(["612", "655", "699"])} ${int(100, 999)} ${int(100, 999)}`],
        ["US", () => `+1 (${pick(["202", "305", "617"])}) 555-01${int(10, 99)}`],
        ["US", () => `${pick(["202", "305", "617"])}.555.01${int(10, 99)}`],
        ["GB", () => `020 7946 0${int(100, 999)}`],
        ["DE", () => `0151 ${int(10000000, 99999999)}`],
        ["DE", () => `089 ${int(1000000, 9999999)}`],
        ["FR", () => `06 ${int(10, 99)} ${int(10, 99)} ${int(10, 99)} ${int(10, 99)}`],
        ["AU", () => `(02) 9${int(100, 999)} ${int(1000, 9999)}`],
        ["SE", () => `08-${int(100, 999)} ${int(10, 99)} ${int(10, 99)}`],
        ["CH", () => `044 ${int(100, 999)} ${int(10, 99)} ${int(10, 99)}`],
        ["NL", () => `020-${int(1000000, 9999999)}`],
      ] as const);
      const number = make();
      if (isValidPhoneNumber(number, country)) return number;
    }
  },
  credit_card: () => cardNumber([["3530", 16], ["3589", 16], ["36", 14], ["65", 16], ["4", 16], ["53", 16], ["62", 16]]),
  iban: () => {
    for (;;) {
      const [country, bban] = pick([["ES", () => chars(DIGITS, 20)], ["IT", () => chars(UPPER, 1) + chars(DIGITS, 22)], ["BE", () => chars(DIGITS, 12)], ["AT", () => chars(DIGITS, 16)], ["CH", () => chars(DIGITS, 17)], ["SE", () => chars(DIGITS, 20)], ["PT", () => chars(DIGITS, 21)], ["IE", () => chars(UPPER, 4) + chars(DIGITS, 14)]] as const);
      const iban = composeIBAN({ countryCode: country, bban: bban() });
      if (iban && isValidIBAN(iban)) return rand() < 0.5 ? iban : iban.match(/.{1,4}/g)!.join(" ");
    }
  },
  ip_address: () =>
    pick([
      () => `10.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
      () => `172.${int(16, 31)}.${int(0, 255)}.${int(1, 254)}`,
      () => `fe80::${chars(HEX, 3)}:${chars(HEX, 4)}:${chars(HEX, 4)}:${chars(HEX, 4)}`,
      () => `::ffff:${int(11, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
      () => `${int(11, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
    ])(),
  us_ssn: () => {
    return `${String(int(1, 665)).padStart(3, "0")} ${String(int(1, 99)).padStart(2, "0")} ${String(int(1, 9999)).padStart(4, "0")}`;
  },
};

const HELDOUT_TEMPLATES: Record<string, string[]> = {
  secret: [
    "Il mio token è {v}, perché la chiamata fallisce?",
    'curl -H "Authorization: Bearer {v}" https://api.example.com/v1/items',
    "settings.py:\nSECRET = '{v}'\nDEBUG = False",
    "Hier ist der Schlüssel, bitte nicht weitergeben: {v}",
    "Deze sleutel werkt niet meer: {v}",
    'headers = {"X-Api-Key": "{v}"}',
    "- name: deploy\n  env:\n    DEPLOY_TOKEN: {v}",
    "[2024-06-11 09:12:44] DEBUG using credentials {v}",
    "Can you tell me why this is rejected? {v}",
  ],
  email: [
    "Inoltra il documento a {v}, grazie.",
    "cc: {v}",
    '<a href="mailto:{v}">Contact us</a>',
    "Stuur de factuur naar {v} voor het einde van de maand.",
    "user={v} action=login status=ok",
    "Responda para {v} com a proposta.",
    "Skicka underlaget till {v} innan fredag.",
    "id,name,email\n17,Order desk,{v}",
  ],
  phone: [
    "Mit freundlichen Grüßen\nAnna Berg\nTel.: {v}",
    "Puoi chiamarmi al {v} dopo le 18.",
    "Mijn nummer is {v}, bel gerust.",
    "Ring me on {v} if the courier is late.",
    "Kontakt: Frau Nowak, {v}",
    "Se precisar, ligue para {v}.",
    "<td>Front desk</td><td>{v}</td>",
    "Name: Olga Berg | Mobile: {v} | Team: Finance",
    "Ring mig på {v} i morgon.",
  ],
  credit_card: [
    "Kartennummer: {v}, gültig bis 09/28",
    "La carta di credito {v} è stata addebitata due volte.",
    "pan={v} status=DECLINED merchant=4411",
    '<input name="cc" value="{v}">',
    "Mijn creditcard {v} is geblokkeerd.",
    "Why was {v} declined at checkout?",
  ],
  iban: [
    "IBAN: {v}\nBIC: INGBNL2A",
    "Bonifico su {v} entro fine mese.",
    "Rekeningnummer {v} t.n.v. A. Jansen",
    "Transferência para {v}, por favor.",
    "payee_iban={v} amount=250.00",
    "Refund to {v} please.",
  ],
  ip_address: [
    "Il server {v} non risponde al ping.",
    "X-Forwarded-For: {v}",
    "ping -c 4 {v}",
    "allow from {v};",
    "Failed password for root from {v} port 52144 ssh2",
  ],
  us_ssn: [
    "Social Security No. {v}",
    "SSN# {v} (verified)",
    "<ssn>{v}</ssn>",
    "Tax ID (SSN): {v}",
  ],
};

const HELDOUT_ORDINARY = [
  () => `Phone model ${int(10, 15)} Pro, firmware ${int(1, 9)}.${int(0, 9)}.${int(0, 9)}, battery at ${int(10, 99)}%.`,
  () => `Call ID ${chars(DIGITS, 10)} ended after ${int(1, 59)} minutes.`,
  () => `Telefon-Sprechzeiten: Mo–Fr ${int(7, 9)}:00–${int(12, 17)}:00 Uhr.`,
  () => `Please call the function with n=${int(1000000, 9999999)} iterations.`,
  () => `Hotline-Ticket ${chars(DIGITS, 8)} wurde geschlossen.`,
  () => `Kundennummer ${chars(DIGITS, 9)}, Rechnung vom ${int(1, 28)}.${int(1, 12)}.2024`,
  () => `EAN ${chars(DIGITS, 13)} — ${int(1, 9)} pezzi in magazzino.`,
  () => `Betrag: ${int(1, 9)}.${chars(DIGITS, 3)}.${chars(DIGITS, 3)},${chars(DIGITS, 2)} EUR`,
  () => `OID 1.3.6.1.4.1.${int(100, 99999)}.${int(1, 9)}`,
  () => `Timestamp 2024-0${int(1, 9)}-1${int(0, 9)}T0${int(0, 9)}:${int(10, 59)}:00+02:00`,
  () => `Matrikelnummer ${chars(DIGITS, 8)}`,
  () => `Fibonacci: 0 1 1 2 3 5 8 13 21 34 55 89`,
  () => `Steuernummer ${int(10, 99)}/${int(100, 999)}/${int(10000, 99999)}`,
  () => `ZIP ${int(10000, 99999)}-${int(1000, 9999)}`,
  () => `git tag v${int(1, 9)}.${int(0, 20)}.${int(0, 20)} && git push --tags`,
  () => `String passwort = System.getenv("DB_PASSWORD");`,
  () => "token: ${{ secrets.GITHUB_TOKEN }}",
  () => `api_key = getpass.getpass("API key: ")`,
  () => `The password field must not be empty.`,
  () => `md5 ${chars(HEX, 32)}  backup-${int(2019, 2024)}.zip`,
  () => `Bestelnummer ${chars(DIGITS, 4)} ${chars(DIGITS, 4)} ${chars(DIGITS, 4)} is verzonden.`,
  () => `Volo AZ ${int(100, 999)} partenza ore ${int(10, 23)}:${int(10, 59)}, gate ${int(1, 40)}.`,
  () => `Resolution ${pick(["1920x1080", "2560x1440", "3840x2160"])} at ${pick(["60", "120", "144"])} Hz`,
  () => `SELECT * FROM calls WHERE phone_id = ${chars(DIGITS, 7)} LIMIT ${int(10, 100)};`,
  () => `Test card for the sandbox: ${pick(["4000 0566 5566 5556", "5200 8282 8282 8210", "6011 0009 9013 9424"])}`,
  () => `Telefonkonferenz am ${int(1, 28)}.${int(1, 12)}.2024 um ${int(9, 17)}:${pick(["00", "30"])} Uhr, Raum ${int(100, 499)}.`,
];

/**
 * The fresh split (2026-11-29): written after issue 50's second round had read held-out's misses,
 * so that one split stays untouched. Its values come from formats neither other split uses (other
 * providers' documented key prefixes, a PEM block, a JWT, connection strings; twelve other
 * countries' phone numbers; Amex, Discover, Mastercard 2-series, JCB and Maestro ranges; eight
 * other IBAN countries; SSNs with dashes or none), its templates from other contexts (chat
 * transcripts, Markdown tables, SQL, XML, .env and TOML files, stack traces) in French, Spanish,
 * Polish, Danish, Czech and English, and its ordinary texts are other look-alikes (ISBNs, tracking
 * numbers, ARNs, image digests, placeholders, coordinates, postal codes). `--errors` does not list
 * its errors: reading them would spend it like held-out.
 */
const FRESH_VALUES: Record<string, () => string> = {
  secret: () =>
    pick([
      () => `sk_live_${chars(ALNUM, 24)}`,
      () => `rk_live_${chars(ALNUM, 24)}`,
      () => `glpat-${chars(ALNUM + "-_", 20)}`,
      () => `npm_${chars(ALNUM, 36)}`,
      () => `xoxb-${chars(DIGITS, 12)}-${chars(DIGITS, 13)}-${chars(ALNUM, 24)}`,
      () => `AIza${chars(ALNUM + "-_", 35)}`,
      () => `SK${chars(HEX, 32)}`,
      () => `key-${chars(HEX, 32)}`,
      () => `DefaultEndpointsProtocol=https;AccountName=store${int(10, 99)};AccountKey=${chars(ALNUM + "+/", 86)}==;EndpointSuffix=core.windows.net`,
      () => `postgresql://app:${chars(ALNUM, 16)}@db-${int(1, 9)}.internal:5432/app`,
      () => `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ${chars(ALNUM, 60)}.${chars(ALNUM + "-_", 43)}`,
      () => `-----BEGIN PRIVATE KEY-----\n${chars(ALNUM + "+/", 64)}\n${chars(ALNUM + "+/", 64)}\n-----END PRIVATE KEY-----`,
    ])(),
  email: () => {
    const first = pick(["camille", "lucia", "kasia", "mads", "tereza", "hugo", "pablo", "zofia", "freja", "jakub"]);
    const last = pick(["dubois", "garcia", "kowalski", "nielsen", "novakova", "lefevre", "martinez", "wozniak", "hansen"]);
    const local = pick([`${first}.${last}`, `${first}_${last}${int(10, 99)}`, `${first}+invoices`, `${last}.${first[0]}`, "kontakt", "soporte"]);
    return `${local}@${pick(["exemple.fr", "ejemplo.es", "przyklad.pl", "eksempel.dk", "priklad.cz", "mail.example.co.uk", "eu.corp-example.com"])}`;
  },
  phone: () => {
    for (;;) {
      const [country, make] = pick([
        ["PL", () => `+48 ${int(500, 799)} ${int(100, 999)} ${int(100, 999)}`],
        ["BE", () => `+32 2 ${int(200, 799)} ${int(10, 99)} ${int(10, 99)}`],
        ["AT", () => `+43 1 ${int(2000000, 9999999)}`],
        ["IE", () => `01 ${int(200, 999)} ${int(1000, 9999)}`],
        ["DK", () => `+45 ${int(20, 99)} ${int(10, 99)} ${int(10, 99)} ${int(10, 99)}`],
        ["NO", () => `${int(400, 499)} ${int(10, 99)} ${int(100, 999)}`],
        ["CZ", () => `+420 ${int(601, 608)} ${int(100, 999)} ${int(100, 999)}`],
        ["PT", () => `+351 21 ${int(100, 999)} ${int(1000, 9999)}`],
        ["CA", () => `(416) ${int(200, 999)}-${int(1000, 9999)}`],
        ["MX", () => `+52 55 ${int(1000, 9999)} ${int(1000, 9999)}`],
        ["JP", () => `03-${int(1000, 9999)}-${int(1000, 9999)}`],
        ["BR", () => `(11) 9${int(1000, 9999)}-${int(1000, 9999)}`],
      ] as const);
      const number = make();
      if (isValidPhoneNumber(number, country)) return number;
    }
  },
  credit_card: () => cardNumber([["34", 15], ["37", 15], ["6011", 16], ["2221", 16], ["2720", 16], ["3528", 16], ["6759", 16], ["4", 16]]),
  iban: () => {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 10_000) throw new Error("fresh split: no valid IBAN generated");
      const [country, bban] = pick([
        ["FR", () => chars(DIGITS, 10) + chars(UPPER + DIGITS, 11) + chars(DIGITS, 2)],
        ["DE", () => chars(DIGITS, 18)],
        ["NL", () => chars(UPPER, 4) + chars(DIGITS, 10)],
        ["PL", () => chars(DIGITS, 24)],
        ["NO", () => chars(DIGITS, 11)],
        ["DK", () => chars(DIGITS, 14)],
        ["FI", () => chars(DIGITS, 14)],
        ["GR", () => chars(DIGITS, 7) + chars(UPPER + DIGITS, 16)],
      ] as const);
      const iban = composeIBAN({ countryCode: country, bban: bban() });
      if (iban && isValidIBAN(iban)) return rand() < 0.5 ? iban : iban.match(/.{1,4}/g)!.join(" ");
    }
  },
  ip_address: () =>
    pick([
      () => `192.168.${int(0, 255)}.${int(1, 254)}`,
      () => `100.${int(64, 127)}.${int(0, 255)}.${int(1, 254)}`,
      () => `2001:db8:${chars(HEX, 4)}::${chars(HEX, 3)}`,
      () => `2a02:${chars(HEX, 4)}:${chars(HEX, 4)}:${chars(HEX, 4)}::1`,
      () => `${int(11, 223)}.${int(0, 255)}.${int(0, 255)}.${int(1, 254)}`,
    ])(),
  us_ssn: () => {
    let area = int(1, 899);
    if (area === 666) area = 667;
    const parts = [String(area).padStart(3, "0"), String(int(1, 99)).padStart(2, "0"), String(int(1, 9999)).padStart(4, "0")];
    return parts.join(rand() < 0.7 ? "-" : "");
  },
};

const FRESH_TEMPLATES: Record<string, string[]> = {
  secret: [
    "Voici ma clé, pourquoi l'appel échoue-t-il ? {v}",
    "Este es mi token: {v} — ¿por qué devuelve 401?",
    "# .env\nAPP_ENV=production\nAPI_TOKEN={v}",
    '[service]\nname = "billing"\ntoken = "{v}"',
    "[10:42] marek: use {v} for the staging deploy",
    "Traceback (most recent call last):\n  File \"client.py\", line 12, in <module>\n    connect(\"{v}\")",
    "Klucz API: {v} (nie udostępniaj)",
    "INSERT INTO credentials (service, secret) VALUES ('mail', '{v}');",
  ],
  email: [
    "Merci d'envoyer le devis à {v} avant jeudi.",
    "Escríbeme a {v} si tienes dudas.",
    "| name | e-mail |\n|---|---|\n| Support | {v} |",
    "<contact type=\"billing\">{v}</contact>",
    "Prosimy o kontakt: {v}",
    "Send kontrakten til {v} i dag.",
    "[09:15] tereza: můj e-mail je {v}",
    "reply_to = \"{v}\"",
  ],
  phone: [
    "Vous pouvez me joindre au {v} en semaine.",
    "Llámame al {v} cuando llegues.",
    "Zadzwoń do mnie: {v}",
    "Ring til mig på {v} efter kl. 16.",
    "Můžete mi zavolat na {v}.",
    "| contact | number |\n|---|---|\n| Reception | {v} |",
    "[14:03] hugo: my number is {v}, text me",
    "<phone kind=\"mobile\">{v}</phone>",
    "Liga-me para o {v} amanhã.",
  ],
  credit_card: [
    "Ma carte {v} a été débitée deux fois.",
    "Mi tarjeta {v} fue rechazada.",
    "| order | card |\n|---|---|\n| 1182 | {v} |",
    "INSERT INTO payments (order_id, card) VALUES (1182, '{v}');",
    "[11:20] zofia: charge it to {v} please",
    "Moje karta {v} nefunguje.",
  ],
  iban: [
    "Merci de virer le montant sur {v}.",
    "Proszę o przelew na konto {v}.",
    "Overfør beløbet til {v} senest fredag.",
    "<iban>{v}</iban>",
    "| payee | IBAN |\n|---|---|\n| Supplier | {v} |",
    "refund_account = \"{v}\"",
  ],
  ip_address: [
    "Le serveur {v} ne répond plus.",
    "El cliente {v} superó el límite de peticiones.",
    'logger: {"level":"warn","remote_addr":"{v}","msg":"rate limited"}',
    "iptables -A INPUT -s {v} -j DROP",
    "upstream backend { server {v}:8080; }",
  ],
  us_ssn: [
    "Her SSN is {v}, please update the W-2.",
    "| employee | ssn |\n|---|---|\n| J. Rivera | {v} |",
    "<ssn verified=\"true\">{v}</ssn>",
    "Social security number: {v}",
  ],
};

const FRESH_ORDINARY = [
  () => `ISBN 978-${int(0, 9)}-${chars(DIGITS, 3)}-${chars(DIGITS, 5)}-${int(0, 9)}`,
  () => `Tracking number 1Z${chars(UPPER + DIGITS, 16)}`,
  () => `arn:aws:iam::${chars(DIGITS, 12)}:role/deploy-${int(1, 9)}`,
  () => `image: registry.example.com/api@sha256:${chars(HEX, 64)}`,
  () => `Replace sk_live_XXXXXXXXXXXXXXXXXXXXXXXX with your own key.`,
  () => `export API_KEY="<your-api-key>"`,
  () => `Coordinates ${int(10, 60)}.${chars(DIGITS, 4)}, ${int(1, 30)}.${chars(DIGITS, 4)}`,
  () => `Kod pocztowy ${int(10, 99)}-${chars(DIGITS, 3)} Warszawa`,
  () => `Numéro SIRET ${chars(DIGITS, 14)}`,
  () => `Factura n.º ${int(2020, 2025)}/${chars(DIGITS, 6)}`,
  () => `Firmware ${int(1, 9)}.${int(0, 20)}.${int(0, 9)}.${int(100, 999)} released`,
  () => `Colour #${chars(HEX, 6)} on #${chars(HEX, 6)}`,
  () => `Commit ${chars(HEX, 40)} reverted`,
  () => `Request id ${chars(HEX, 8)}-${chars(HEX, 4)}-4${chars(HEX, 3)}-${chars(HEX, 4)}-${chars(HEX, 12)}`,
  () => `Sag nr. ${chars(DIGITS, 8)} er afsluttet.`,
  () => `Case ${chars(DIGITS, 3)}-${chars(DIGITS, 2)}-${chars(DIGITS, 3)} was reopened.`,
  () => `The phone rang ${int(2, 9)} times before voicemail.`,
  () => `Tel Aviv, Paris and Oslo offices close at ${int(16, 19)}:00.`,
  () => `password = os.environ["DB_PASSWORD"]`,
  () => `Cena: ${int(1, 99)} ${chars(DIGITS, 3)},${chars(DIGITS, 2)} Kč`,
  () => `Version ${int(1, 3)}.${int(0, 9)}.${int(0, 9)} of the SDK requires Node ${int(18, 22)}.`,
  () => `Room ${int(100, 999)}, floor ${int(1, 20)}, badge ${chars(DIGITS, 6)}`,
];

/**
 * An IPv6 address followed by a port is written in brackets, as RFC 3986 (section 3.2.2) writes a
 * URI's host: unbracketed, `2001:db8::1:8080` is itself a valid (other) IPv6 address, and the label
 * would not say what the text says.
 */
const withBracketedHost = (template: string, value: string) => (value.includes(":") && template.includes("{v}:") ? template.replace("{v}:", "[{v}]:") : template);

export function generate(split: Split = "dev"): Sample[] {
  seed = SEEDS[split];
  const [valueMakers, templates, ordinary, perType] = {
    dev: [values, TEMPLATES, ORDINARY, 120] as const,
    heldout: [HELDOUT_VALUES, HELDOUT_TEMPLATES, HELDOUT_ORDINARY, 150] as const,
    fresh: [FRESH_VALUES, FRESH_TEMPLATES, FRESH_ORDINARY, 150] as const,
  }[split];
  const samples: Sample[] = [];
  for (const [type, list] of Object.entries(templates)) {
    for (let i = 0; i < perType; i++) {
      const picked = pick(list);
      const value = valueMakers[type]!();
      const template = type === "ip_address" ? withBracketedHost(picked, value) : picked;
      const start = template.indexOf("{v}");
      samples.push({ id: `${type}-${i}`, kind: "entity", text: template.replace("{v}", value), entities: [{ type, start, end: start + value.length }] });
    }
  }
  for (let i = 0; i < 1000; i++) samples.push({ id: `ordinary-${i}`, kind: "ordinary", text: pick(ordinary)(), entities: [] });
  return samples;
}

export const dataFile = (split: Split) => join(import.meta.dir, "data", split === "dev" ? "data-protection.jsonl" : `data-protection-${split}.jsonl`);

if (import.meta.main) {
  mkdirSync(join(import.meta.dir, "data"), { recursive: true });
  for (const split of Object.keys(SEEDS) as Split[]) {
    const samples = generate(split);
    writeFileSync(dataFile(split), samples.map((s) => JSON.stringify(s)).join("\n") + "\n");
    console.log(`wrote ${samples.length} samples to ${dataFile(split)}`);
  }
}
