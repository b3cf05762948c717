import { findPhoneNumbersInText, getCountryCallingCode, isSupportedCountry, type CountryCode } from "libphonenumber-js";
import type { Detector } from "../detector";
import type { Detection } from "../model";

/**
 * The most candidates one text has checked (libphonenumber takes ~0.17 ms each here): a 10 MB
 * prompt full of digit runs costs at most about a second; numbers after that are not reported.
 */
export const MAX_PHONE_CANDIDATES = 5000;

/** Regions whose national numbers are read when a workspace names none: North American numbers in their usual grouping. */
export const DEFAULT_PHONE_REGIONS = ["US"];

const NOT_A_NUMBER = /\d{4}-\d{2}-\d{2}|\d{1,2}[.\/]\d{1,2}[.\/]\d{2,4}|\d+\.\d+\.\d+\.\d+/;

const NANP_WRITTEN = /^(?:1[ .\-])?(?:\(\d{3}\)\s?|\d{3}[ .\-])\d{3}[ .\-]\d{4}$/;

/**
 * What a candidate must hold for a region's pass to find anything in it (libphonenumber costs
 * 0.02–1 ms a call; digit runs in logs and JSON are mostly ids): a North American grouping, or,
 * for other regions, digits in groups (every national form below is grouped).
 */
const MAY_BE_NANP = /(?:\(\d{3}\)\s?|\d{3}[ .\-])\d{3}[ .\-]\d{4}/;
const GROUPED = /\d[ \-.\/)]\s*\d/;

/** Runs of digits and the separators phone numbers are written with: only these go to libphonenumber. */
const CANDIDATE = /(?:\+|\(|\b)\d[\d \t().\-\/]{5,20}\d\b/g;

/**
 * A national number as people write one: groups of digits separated by a space, dash, dot or slash,
 * the first often in parentheses, with or without the trunk prefix 0 ("030 4894136", "01 44 53 52
 * 63", "(02) 9123 4567", "08-123 45 67", Budapest's "06 1 234 5678"; Denmark's "34 41 23 45",
 * Portugal's "912 345 678", Mexico's "222 123 4567": many numbering plans have no trunk prefix;
 * Russia's "8 (912) 345-67-89", its trunk prefix before the parentheses).
 * Only taken after a phone word (PHONE_CUE) and with 7 to 13 digits. Ungrouped digit runs are
 * order and customer numbers far more often.
 */
const NATIONAL_WRITTEN = /^(?:\d{1,2} ?)?(?:\(\d{1,4}\)\s?|\d{1,6}[ \-.\/])\d{1,8}(?:[ \-.\/]\d{1,8}){0,4}$/;
/** A national number's digits, announced: fewer are short codes and extensions, more are not one number. */
const NATIONAL_DIGITS = { min: 7, max: 13 };

/**
 * Words that announce a phone number, in English and the languages of the European Union spoken
 * first by ten million people or more (German, French, Italian, Spanish, Polish, Romanian, Dutch,
 * Greek, Hungarian, Portuguese, Czech, Swedish): the regions where numbers are written nationally
 * with the trunk prefix 0. Per language the same concepts: telephone (and its abbreviation),
 * mobile, fax, hotline, the verbs for calling and ringing, contact. Without a region a national
 * number cannot be validated (030 4894136 is a valid number in 46 regions), so it is taken only
 * after one of these.
 */
const PHONE_WORDS = [
  // telephone, mobile, fax, hotline and contact, shared by several of the languages
  "telef\\p{L}*", "t[ée]l", "tlf", "mobil\\p{L}*", "fax", "faks", "hotline", "kontakt\\p{L}*", "conta(?:ct|tt?)\\p{L}*",
  // English
  "phone", "telephone", "call", "calling", "cell", "dial", "ring",
  // German
  "handy", "rufnummer", "\\p{L}*rufen", "erreichbar",
  // French
  "t[ée]l[ée]phone", "portable", "appel\\p{L}*", "joindre",
  // Italian
  "cellulare", "chiam\\p{L}*",
  // Spanish
  "tel[ée]fono", "m[óo]vil", "celular", "ll[aá]m\\p{L}*",
  // Polish
  "kom[óo]rk\\p{L}*", "zadzwo\\p{L}*", "dzwo\\p{L}*",
  // Romanian
  "suna\\p{L}*", "apela\\p{L}*",
  // Dutch
  "mobiel", "bel", "bellen",
  // Greek
  "τηλ\\p{L}*", "κινητ\\p{L}*", "φαξ", "καλ[εέ]στε", "επικοινων\\p{L}*",
  // Hungarian
  "h[íi]vj\\p{L}*", "el[ée]rhet\\p{L}*",
  // Portuguese
  "telem[óo]vel", "lig(?:ar|ue|a)\\p{L}*",
  // Czech
  "volej\\p{L}*", "zavolej\\p{L}*",
  // Swedish
  "ringa",
  // Russian and Ukrainian (Cyrillic)
  "тел\\p{L}*", "моб\\p{L}*", "звон\\p{L}*", "дзвон\\p{L}*",
];
/**
 * The same words in Chinese, Japanese and Korean, which are written without spaces: matched
 * without word boundaries ("お電話番号：", "联系电话:").
 */
const CJK_PHONE_WORDS = ["電話", "携帯", "連絡先", "电话", "手机", "手機", "联系", "聯絡", "전화", "휴대폰", "핸드폰", "연락처"];
/**
 * "My number", "meine Nummer", "mijn nummer", … in the same languages: the possessive makes the
 * number a personal one (a bare "number" is an order or invoice number as often).
 */
const MY_NUMBER = [
  "(?:my|our)\\s+(?:phone\\s+)?number", "(?:meine|unsere)\\s+nummer", "(?:mon|notre)\\s+num[ée]ro", "(?:il\\s+)?(?:mio|nostro)\\s+numero",
  "(?:mi|nuestro)\\s+n[úu]mero", "(?:m[óo]j|nasz)\\s+numer", "num[ăa]rul\\s+(?:meu|nostru)", "(?:mijn|ons)\\s+nummer",
  "(?:ο\\s+)?αριθμ[όο]ς\\s+μου", "(?:a\\s+)?sz[áa]mom", "(?:o\\s+)?(?:meu|nosso)\\s+n[úu]mero", "(?:moje|na[šs]e)\\s+[čc][íi]slo", "(?:mitt|v[åa]rt)\\s+nummer",
];
const PHONE_CUE = new RegExp(`(?:(?<!\\p{L})(?:${[...PHONE_WORDS, ...MY_NUMBER].join("|")})(?!\\p{L})|${CJK_PHONE_WORDS.join("|")})[^\\d\\n]{0,32}$`, "iu");
/** How far before a number its cue word may stand. */
const CUE_WINDOW_CHARS = 48;
/**
 * A table cell holding nothing but the number (an HTML <td>/<th>, a Markdown "| … |" cell): contact
 * lists are tables, and a cell is a field of its own, read like a number after a phone word.
 */
const CELL_BEFORE = /(?:<t[dh](?:\s[^<>]*)?>|\|)\s*$/i;
const CELL_AFTER = /^\s*(?:<\/t[dh]>|\|)/i;

/** A phone word shortly before the number, or a table cell of its own around it. */
function isAnnounced(text: string, start: number, end: number): boolean {
  const before = text.slice(Math.max(0, start - CUE_WINDOW_CHARS), start);
  return PHONE_CUE.test(before) || (CELL_BEFORE.test(before) && CELL_AFTER.test(text.slice(end, end + 8)));
}

/** A phone region as a workspace gives it: an ISO 3166-1 alpha-2 code libphonenumber has a numbering plan for. */
export const isPhoneRegion = (code: string): code is CountryCode => /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);

/** What the detector reads of one number libphonenumber found in a candidate's window. */
type WindowNumber = { startsAt: number; endsAt: number; nationalDigits: number; formattedNationalDigits: number };

/**
 * libphonenumber's answers for recently read windows, keyed by a 64-bit hash of region and window
 * (so the cache holds no number). Why: the library allocates ~10 KB for each number it validates
 * (it builds its regexes anew on every call), and that garbage, not the matching, is what paused
 * scans: an eden collection every ~40 scans of a 10 KB prompt, 1–6 ms each on this machine, with
 * the library's long regexes compiled again after it. And the same written number comes back: a
 * chat client resends the whole conversation on every turn. Two generations of up to 2,048
 * windows each: when the newer one is full it becomes the older one and the older is dropped
 * (a Map evicting its oldest key one at a time cost ~10 µs a call).
 */
const WINDOWS_PER_GENERATION = 2048;
let recentWindows = new Map<number | bigint, WindowNumber[]>();
let olderWindows = new Map<number | bigint, WindowNumber[]>();

function remember(key: number | bigint, numbers: WindowNumber[]) {
  if (recentWindows.size >= WINDOWS_PER_GENERATION) {
    olderWindows = recentWindows;
    recentWindows = new Map();
  }
  recentWindows.set(key, numbers);
}

function numbersIn(window: string, region: CountryCode | undefined): WindowNumber[] {
  const key = Bun.hash(`${region ?? "+"} ${window}`);
  const recent = recentWindows.get(key);
  if (recent) return recent;
  let numbers = olderWindows.get(key);
  if (!numbers) {
    numbers = findPhoneNumbersInText(window, region).map(({ startsAt, endsAt, number }) => ({
      startsAt,
      endsAt,
      nationalDigits: number.nationalNumber.length,
      formattedNationalDigits: region && getCountryCallingCode(region) !== "1" ? number.formatNational().replace(/\D/g, "").length : 0,
    }));
  }
  remember(key, numbers);
  return numbers;
}

/**
 * Phone numbers as libphonenumber-js validates them: international numbers (+…) for every country;
 * national numbers of the workspace's regions (North American ones in their usual grouping; others
 * written with the region's trunk prefix or in groups); and, in any region, a national number
 * written in groups right after a word such as "phone", "Tel.", "chiamarmi", or alone in a table cell.
 * The library is only asked about digit runs long enough to be a number, a few characters each:
 * over a whole 10 KB text it costs milliseconds, over the candidates microseconds.
 */
export function phoneDetector(regions: readonly string[] = DEFAULT_PHONE_REGIONS): Detector {
  const plansOfRegions = regions.filter(isPhoneRegion).map((region) => ({ region, nanp: getCountryCallingCode(region) === "1" }));
  // A national number counts when written the way numbers of its region are: North American
  // grouping; in groups and with the trunk prefix where the region has one (more digits written
  // than the national number has); elsewhere in three or more groups of two or more digits
  // ("612 34 56 78"). Ungrouped digit runs are order and parcel numbers far more often.
  const writtenNationally = (text: string, number: WindowNumber, nanp: boolean) => {
    if (nanp) return NANP_WRITTEN.test(text);
    const national = number.nationalDigits;
    if (number.formattedNationalDigits > national) return text.replace(/\D/g, "").length > national && /\d[ \-.\/)]\s*\d/.test(text);
    return /^\d{2,}(?:[ \-]\d{2,}){2,}$/.test(text);
  };
  return {
    type: "phone",
    detect(text) {
      const found: Detection[] = [];
      let checked = 0;
      for (const match of text.matchAll(CANDIDATE)) {
        if (++checked > MAX_PHONE_CANDIDATES) break;
        // A date, time or dotted number (address, version) holds digit runs that validate as a number
        // ("2024-05" of "2024-05-02T08:15", where the candidate stops at the letter).
        if (NOT_A_NUMBER.test(text.slice(match.index, match.index + match[0].length + 6))) continue;
        const from = Math.max(0, match.index - 1);
        const window = text.slice(from, match.index + match[0].length + 1);
        const before = found.length;
        // An international number is the same in every region: one pass; a national one is read in each region.
        const grouped = GROUPED.test(match[0]);
        const passes = match[0].startsWith("+") ? [undefined] : plansOfRegions.filter((plan) => (plan.nanp ? MAY_BE_NANP.test(match[0]) : grouped));
        for (const plan of passes) {
          for (const number of numbersIn(window, plan?.region)) {
            const writtenNumber = window.slice(number.startsAt, number.endsAt);
            if (!writtenNumber.startsWith("+") && (!plan || !writtenNationally(writtenNumber, number, plan.nanp))) continue;
            const start = from + number.startsAt;
            if (!found.slice(before).some((f) => f.start === start)) found.push({ type: "phone", start, end: from + number.endsAt });
          }
        }
        if (found.length > before) continue;
        const national = match[0].trim();
        if (NATIONAL_WRITTEN.test(national) && isAnnounced(text, match.index, match.index + match[0].length)) {
          const digits = national.replace(/\D/g, "").length;
          if (digits >= NATIONAL_DIGITS.min && digits <= NATIONAL_DIGITS.max) found.push({ type: "phone", start: match.index, end: match.index + match[0].length });
        }
      }
      return found;
    },
  };
}
