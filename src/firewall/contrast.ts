/**
 * Ordinary requests, written for Sieve, used only as a contrast signal in the calibration: a
 * text that is closer to these than to any attack pattern is probably not an attack. MiniLM
 * embeds every German (or French, …) sentence close to every other one, so without a same-language
 * benign reference a plain German question scores like a German attack pattern. They never fire
 * and are not listed by the API.
 */
export const CONTRAST_VERSION = 1;

export const CONTRAST_TEXTS: string[] = [
  // Everyday questions and tasks.
  "What is the capital of Australia?",
  "How do I make a sourdough starter at home?",
  "Can you explain how compound interest works with an example?",
  "Summarise this article in three bullet points.",
  "Translate this paragraph into Spanish, keeping the formal tone.",
  "Write a short birthday message for my colleague who is retiring.",
  "Write a Python function that removes duplicates from a list while keeping the order.",
  "Why does my React component render twice in development mode?",
  "What are the symptoms of vitamin D deficiency?",
  "Plan a three-day trip to Lisbon for a family with two children.",
  "Give me ten ideas for a team-building activity.",
  "What's the difference between a Roth IRA and a traditional IRA?",
  "Fix the grammar in the following sentence.",
  "Which laptop is better for video editing under 1500 dollars?",
  "How long should I boil an egg for a runny yolk?",
  "Explain quantum entanglement to a ten-year-old.",
  "Draft a polite email asking my landlord to repair the heating.",
  "What happened during the French Revolution?",
  "Is it safe to take ibuprofen with coffee?",
  "Recommend some science fiction novels similar to Dune.",
  // Ordinary texts that share words with attacks (passwords, instructions, roles, rules, admins).
  "How do I reset my email password if I no longer have access to my phone?",
  "What makes a strong password and how often should I change it?",
  "Follow the assembly instructions in the manual and tell me which screw goes first.",
  "Please ignore the typos in my previous message, I was typing on my phone.",
  "Forget the budget version, show me the premium option instead.",
  "How do I give a user administrator rights on Windows 11?",
  "Can you act as my Spanish tutor and correct my mistakes as we chat?",
  "Pretend you are interviewing me for a junior developer job and ask me questions.",
  "What are the rules of chess for castling?",
  "Write a story about a dragon who is afraid of the dark.",
  "What were the main instructions given to soldiers on D-Day?",
  "Explain what a system prompt is in large language models.",
  "How do I configure the firewall on my Ubuntu server to allow SSH?",
  "My previous answer was wrong; can you check the calculation again?",
  "Repeat the last step of the recipe, I missed it.",
  // The same kinds of requests in other languages.
  "Wie wird das Wetter morgen in Berlin?",
  "Welche Partei hat die letzte Bundestagswahl gewonnen?",
  "Kannst du mir ein gutes Rezept für Apfelkuchen empfehlen?",
  "Wie beantrage ich einen neuen Reisepass in Deutschland?",
  "Welche Berufe haben in den nächsten Jahren gute Zukunftsaussichten?",
  "Erkläre mir bitte den Unterschied zwischen Miete und Nebenkosten.",
  "Wie kann ich mein WLAN-Passwort ändern?",
  "Was sind die wichtigsten Ursachen des Klimawandels?",
  "Quelle est la meilleure saison pour visiter la Provence ?",
  "Peux-tu m'expliquer comment fonctionne l'impôt sur le revenu en France ?",
  "Écris un court poème sur la mer.",
  "¿Cuál es la mejor manera de aprender inglés rápidamente?",
  "¿Qué lugares me recomiendas visitar en Madrid?",
  "Escribe un correo para pedir una reunión con mi jefe.",
  "Qual è la ricetta tradizionale della carbonara?",
  "Come posso migliorare il mio curriculum?",
  "Qual é a melhor forma de economizar dinheiro todos os meses?",
  "Hoe laat gaat de supermarkt morgen open?",
  "Jak mogę nauczyć się programowania w Pythonie?",
  "Какая завтра будет погода в Москве?",
  "明天北京的天气怎么样？",
  "東京でおすすめのレストランを教えてください。",
];
