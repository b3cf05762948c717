/**
 * Hard negatives for the data channel, written for this project (issue #51): sentences that tell a
 * *person* what to do, as e-mails, notices and pages do all the time ("disregard my earlier
 * message about the budget", "do not share this link outside the company"), many with the verbs
 * injections use. Composed from the parts below with a fixed seed, and placed at a sentence
 * boundary of a training row's untouched carrier, so the data channel's addressee head
 * (scripts/fit/firewall-data-channel.ts) learns the addressee, not the imperative. Nothing here is
 * taken from an evaluation set; `assertNotFromDataChannelDev` checks the data-channel dev set.
 */
import { dataChannelRows } from "../eval/firewall-data-channel-set";
import { seededRandom } from "../seeded-random";

const OPENERS = ["", "Please ", "Kindly ", "Hi Sam, ", "Team, ", "Reminder: ", "Quick note: ", "Dear customer, ", "Folks, ", "Everyone: ", "Important: ", "Note to staff: ", "Dear parents, ", "Hello neighbours, "];

/** Verb phrases to a reader, colleague, customer or neighbour; several with an injection's verbs. */
const ACTIONS = [
  "ignore the earlier reminder about the fire drill, it has been postponed to next week",
  "ignore any letters from the old landlord and pay the rent to the new account from May",
  "disregard my previous message about the budget figures, finance sent the wrong sheet",
  "disregard the delivery slip in the box; the invoice follows by post",
  "forget the old login link and use the one on the intranet home page",
  "forget what I said about Tuesday, the plumber can only come on Thursday",
  "do not share this link with anyone outside the company",
  "do not reply to this address; write to the front office instead",
  "delete the duplicate entries from the shared spreadsheet before the audit",
  "send your timesheet to payroll before Thursday noon",
  "reply to all with your availability for the offsite",
  "call the front desk if the heating fails again overnight",
  "bring a printed copy of your booking confirmation to the counter",
  "keep this code safe, you will need it to collect the parcel",
  "update your contact details in the staff portal by the end of the month",
  "sign the attached form and return it to the HR office",
  "stop using the old printer on the third floor, it is being replaced",
  "change the default settings only if the facilities team asks you to",
  "reset your voicemail PIN after the phone system migration",
  "tell your manager in advance if you cannot attend the training",
  "act as the contact person for visitors while Maria is on leave",
  "from now on, book meeting rooms through the new calendar instead of by e-mail",
  "pretend you have not seen the invitation, the party is a surprise",
  "write down the gate code and do not post it in the group chat",
  "repeat the safety briefing for anyone who joins the shift late",
  "reveal the winner only at the end of the ceremony",
  "forward these instructions to the new interns",
  "follow the instructions on the back of the box when you assemble the shelf",
  "override the thermostat schedule only during the cold snap",
  "skip the previous section of the manual if you already own the earlier model",
  "return the keys to the caretaker before you move out",
  "answer the survey honestly, it is anonymous",
  "treat this message as confidential until the announcement on Monday",
  "switch off the lights and lock the back door when you leave",
  "check your spam folder if the confirmation does not arrive",
  "send me the signed lease by Friday so I can file it",
  "print two copies of the agenda and leave them on the front desk",
  "share your screen when it is your turn to present",
  "do not open attachments from senders you do not recognise",
  "erase the whiteboard after the workshop",
  "cancel your old direct debit once the new one is active",
  "read the safety notes before you use the ladder",
  "remind your children that the pool closes at six",
  "ignore the automatic reply from my old address, I still read this one",
  "forget the password of the old wifi network, it has been switched off",
  "disregard the second page of the form, it only applies to companies",
  "stop the washing machine before the spin cycle if you hang up silk",
  "keep the receipt; the shop will not exchange anything without it",
  "answer the phone with the company name, not your own",
  "copy the finance team on any order above five hundred euros",
  "log out of the shared computer when you leave the library",
  "bring your own mug, the kitchen has run out of cups",
  "wait for the green light before you cross the loading bay",
  "write your name on the list if you want a seat on the bus",
  "use the side entrance while the lobby is being renovated",
  "post your questions in the comments below and we will answer them on Friday",
  "enter the code printed on your ticket to unlock the locker",
  "tell the driver your stop when you get on",
  "send a short summary of the meeting to everyone who missed it",
  "don't tell Mum about the present, it is a surprise",
];

const CLOSERS = ["", " Thanks!", " Thank you.", " Let me know if you have questions.", " See you on Monday.", " Many thanks, Jo.", " Sorry for the confusion."];

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** `count` distinct person-addressed sentences, the same on every run for the same seed. */
export function personRequests(count: number, seed = 51): string[] {
  const random = seededRandom(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const sentences = new Set<string>();
  const limit = OPENERS.length * ACTIONS.length * CLOSERS.length;
  while (sentences.size < Math.min(count, limit)) {
    const opener = pick(OPENERS);
    sentences.add(`${opener ? opener + pick(ACTIONS) : capitalise(pick(ACTIONS))}.${pick(CLOSERS)}`);
  }
  return [...sentences];
}

/** `sentence` put at a sentence boundary of `carrier` chosen by `at` (0–1). */
export function placeInCarrier(carrier: string, sentence: string, at: number): string {
  const boundaries = [0, ...[...carrier.matchAll(/[.!?]\s+|\n+/g)].map((m) => m.index! + m[0].length), carrier.length];
  const cut = boundaries[Math.min(boundaries.length - 1, Math.floor(at * boundaries.length))]!;
  const before = carrier.slice(0, cut);
  const after = carrier.slice(cut);
  return `${before}${before && !/\s$/.test(before) ? " " : ""}${sentence}${after && !/^\s/.test(after) ? " " : ""}${after}`;
}

/** Throws when a generated sentence occurs in a row of the data-channel dev set (it never should: nothing is copied from it). */
export function assertNotFromDataChannelDev(sentences: string[]): void {
  const dev = dataChannelRows().map((row) => row.text.toLowerCase());
  const copied = sentences.filter((sentence) => dev.some((text) => text.includes(sentence.toLowerCase().replace(/[.!]\s.*$|\.$/, ""))));
  if (copied.length > 0) throw new Error(`person-addressed examples found in the data-channel dev set: ${copied.slice(0, 3).join(" | ")}`);
}
