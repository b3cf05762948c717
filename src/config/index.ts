import { serveOptions } from "./options";
import { parseOptions, type OptionValues } from "./parse";

export type Config = OptionValues<typeof serveOptions>;

/** The serve command's configuration: flags over environment over defaults. */
export function loadConfig(args: string[], env: Record<string, string | undefined> = process.env): Config {
  return parseOptions(serveOptions, args, env).values;
}

/** Defaults with overrides, for tests and tools that build a Config in code. */
export function configWith(overrides: Partial<Config>): Config {
  return { ...loadConfig([], {}), ...overrides };
}

export { serveOptions } from "./options";
export { UsageError, parseOptions, formatHelp } from "./parse";
