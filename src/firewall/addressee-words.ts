/**
 * Words that address whatever AI reads a text, as injections hidden in data do and e-mails to
 * people do not (the data channel's rule, data-channel.ts): a note or instruction to the AI; an AI
 * or assistant "reading / processing this"; "if you are an AI"; an AI called out at the start of a
 * sentence ("Chatbot: …", "To the AI assistant: …"). In English and seven of the European Union's
 * most spoken languages (German, French, Spanish, Italian, Portuguese, Dutch, Polish); the
 * "reading / processing this" form in English only.
 *
 * Left out on purpose: "agent" and "model" alone (a travel agent, a model reading sensor data),
 * "assistant" and "bot" except where the sentence casts them as the text's reader, and products
 * named like people or things (Claude, Gemini, Copilot): "Claude, please send the invoice" is an
 * e-mail to a colleague as often.
 */

/** Per language: what an AI reader is called, the notes addressed to one, "to / for" and the articles between, and "if you are an AI". */
const LANGUAGES = [
  {
    ai: String.raw`AI|A\.I\.|LLMs?|chat ?bots?|language models?|GPT(?:-\d+\w*)?|ChatGPT|AI (?:assistants?|agents?|models?|systems?|tools?)`,
    note: String.raw`notes?|messages?|instructions?|attention|reminders?|memo|request`,
    to: String.raw`(?:to|for)(?:\s+(?:the|any|all|whichever|every))?`,
    ifYouAre: String.raw`if\s+you\s+are\s+(?:an?\s+)?(?:AI|LLM|chat ?bot|language model|assistant|bot)`,
  },
  {
    ai: String.raw`KI|KI-Assistent(?:en)?|KI-Modell|Sprachmodell|Chatbot`,
    note: String.raw`Hinweis|Nachricht|Anweisung(?:en)?|Notiz|Achtung`,
    to: String.raw`(?:an|für)(?:\s+(?:die|das|den|dem|jede|jedes))?`,
    ifYouAre: String.raw`(?:wenn|falls)\s+du\s+(?:eine\s+|ein\s+)?(?:KI|Sprachmodell|Chatbot)\s+bist`,
  },
  {
    ai: String.raw`IA|assistant IA|modèle de langage|chatbot`,
    note: String.raw`note|message|instructions?|consignes?|attention`,
    to: String.raw`(?:à|pour)(?:\s+(?:la|le|tout|toute)|\s*l['’])?`,
    ifYouAre: String.raw`si\s+(?:tu\s+es|vous\s+êtes)\s+(?:une?\s+)?(?:IA|modèle de langage|chatbot|assistant)`,
  },
  {
    ai: String.raw`IA|asistente de IA|modelo de lenguaje|chatbot`,
    note: String.raw`nota|mensaje|instrucci[oó]n(?:es)?|atenci[oó]n`,
    to: String.raw`(?:para|a)(?:\s+(?:la|el|cualquier))?`,
    ifYouAre: String.raw`si\s+(?:eres|usted\s+es)\s+(?:una?\s+)?(?:IA|modelo de lenguaje|chatbot|asistente)`,
  },
  {
    ai: String.raw`IA|assistente IA|modello linguistico|chatbot`,
    note: String.raw`nota|messaggio|istruzion[ei]|attenzione`,
    to: String.raw`(?:per|a)(?:\s+(?:la|il|ogni)|\s*l['’])?|all['’]`,
    ifYouAre: String.raw`se\s+sei\s+(?:una?\s+|un['’])?(?:IA|modello linguistico|chatbot|assistente)`,
  },
  {
    ai: String.raw`IA|assistente de IA|modelo de linguagem|chatbot`,
    note: String.raw`nota|mensagem|instru[çc][ãa]o|instru[çc][õo]es|aten[çc][ãa]o`,
    to: String.raw`(?:para|à|ao)(?:\s+(?:a|o|qualquer))?`,
    ifYouAre: String.raw`se\s+(?:você\s+é|és)\s+(?:uma?\s+)?(?:IA|modelo de linguagem|chatbot|assistente)`,
  },
  {
    ai: String.raw`AI|AI-assistent|taalmodel|chatbot`,
    note: String.raw`notitie|bericht|instructies?|let op`,
    to: String.raw`(?:aan|voor)(?:\s+(?:de|het|elke))?`,
    ifYouAre: String.raw`als\s+(?:je|u)\s+(?:een\s+)?(?:AI|taalmodel|chatbot)\s+(?:bent|is)`,
  },
  {
    ai: String.raw`AI|asystenta AI|modelu językowego|modelu AI|chatbota`,
    note: String.raw`uwaga|wiadomość|instrukcja|instrukcje|polecenie`,
    to: String.raw`dla(?:\s+(?:każdego))?`,
    ifYouAre: String.raw`jeśli\s+jesteś\s+(?:AI|modelem językowym|chatbotem|asystentem)`,
  },
];

/** English only: an AI or assistant "reading / processing this" (the other languages say it with a relative clause). */
const READING_THIS = String.raw`(?:${LANGUAGES[0]!.ai}|assistants?|bots?)\s+(?:that\s+(?:is\s+)?|who\s+(?:is\s+)?)?(?:reading|reads|processing|processes|summari[sz]ing|summari[sz]es|handling|parsing|analy[sz]ing|seeing|sees)\s+(?:this|these|the\s+following)`;

/** A letter or digit must not stand right before or after a word (\b is ASCII-only: "modèle", "à"). */
const word = (pattern: string) => String.raw`(?<![\p{L}\p{N}])(?:${pattern})(?![\p{L}\p{N}])`;

const ADDRESSES_AN_AI = new RegExp(
  [
    ...LANGUAGES.map(({ ai, note, to }) => word(String.raw`(?:${note})\s+${to}\s*(?:${ai})`)),
    ...LANGUAGES.map(({ ifYouAre }) => word(ifYouAre)),
    word(READING_THIS),
    // Called out at a sentence start: "Chatbot: …", "Dear AI, …", "To the AI assistant: …", "KI: …".
    String.raw`(?:^|[.!?;]\s+|\n\s*)(?:(?:dear|hey|hi|hello|attention|to(?:\s+the)?)\s+)?(?:${LANGUAGES.map((l) => l.ai).join("|")}|assistant)\s*[:,]`,
  ].join("|"),
  "iu",
);

/**
 * Every form above names its reader with one of these (ASCII word starts, no Unicode classes): most
 * windows hold none and skip the full expression, which costs ~8 µs a window against ~1 µs for this.
 */
const NAMES_AN_AI_OR_ASSISTANT = /\b(?:ai|a\.i\.|llm|chat ?bot|language model|gpt|chatgpt|ki|ia|sprachmodell|mod[eè]l|taalmodel|assist|asyst|bot)/i;

/** Whether the text's words address an AI reader outright (see the file's comment). */
export const addressesAnAi = (text: string): boolean => NAMES_AN_AI_OR_ASSISTANT.test(text) && ADDRESSES_AN_AI.test(text);
