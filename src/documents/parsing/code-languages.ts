/** Source-code file extensions we chunk as code, and the language each one names. */
const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript",
  js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
  py: "python", pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
  kt: "kotlin", kts: "kotlin",
  scala: "scala",
  c: "c", h: "c",
  cpp: "cpp", cc: "cpp", cxx: "cpp", hpp: "cpp", hh: "cpp",
  cs: "csharp",
  rb: "ruby",
  php: "php",
  swift: "swift",
  sh: "shell", bash: "shell", zsh: "shell",
  sql: "sql",
  lua: "lua",
  dart: "dart",
  r: "r",
  pl: "perl",
  css: "css", scss: "css",
  json: "json",
  yaml: "yaml", yml: "yaml",
  toml: "toml",
};

export function codeLanguageForExtension(extension: string): string | undefined {
  return LANGUAGE_BY_EXTENSION[extension];
}

export function codeMimeType(language: string): string {
  if (language === "javascript") return "text/javascript";
  if (language === "json") return "application/json";
  return `text/x-${language}`;
}
