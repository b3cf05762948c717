import { OptionValueError, type OptionSpec } from "./options";

/** A command line or environment value Sieve cannot use; the message names the flag. */
export class UsageError extends Error {}

type Specs = Record<string, OptionSpec<any>>;
export type OptionValues<S extends Specs> = { [K in keyof S]: S[K]["default"] };

/**
 * Reads `specs` from argv (`--flag value`, `--flag=value`, bare `--flag` for booleans) with the
 * environment as fallback and the spec default last. Unknown flags are errors, not ignored:
 * a typo must not silently start the service with a default.
 */
export function parseOptions<S extends Specs>(
  specs: S,
  args: string[],
  env: Record<string, string | undefined>,
): { values: OptionValues<S>; positionals: string[] } {
  const byFlag = new Map(Object.entries(specs).map(([name, spec]) => [spec.flag, name]));
  const raw = new Map<string, { value: string; source: string }>();
  const positionals: string[] = [];

  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const [flag, inline] = splitOnce(arg, "=");
    const name = byFlag.get(flag);
    if (!name) throw new UsageError(`${flag}: unknown option (see --help)`);
    const isBoolean = typeof specs[name]!.default === "boolean";
    let value = inline;
    if (value === undefined) {
      const next = args[i + 1];
      if (isBoolean && (next === undefined || next.startsWith("--") || !/^(true|false|1|0|yes|no|on|off)$/i.test(next))) {
        value = "true";
      } else if (next === undefined) {
        throw new UsageError(`${flag}: missing value`);
      } else {
        value = next;
        i++;
      }
    }
    raw.set(name, { value, source: flag });
  }

  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const fromEnv = env[spec.env];
    const given = raw.get(name) ?? (fromEnv !== undefined && fromEnv !== "" ? { value: fromEnv, source: spec.env } : undefined);
    if (!given) {
      values[name] = spec.default;
      continue;
    }
    try {
      values[name] = spec.parse(given.value);
    } catch (error) {
      if (error instanceof OptionValueError) throw new UsageError(`${given.source}: ${error.message}`);
      throw error;
    }
  }
  return { values: values as OptionValues<S>, positionals };
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}

export function formatHelp(specs: Specs): string {
  return Object.values(specs)
    .map((spec) => {
      const shown = spec.defaultLabel ?? JSON.stringify(spec.default);
      return `  ${spec.flag.padEnd(24)} ${spec.help} (default ${shown}; env ${spec.env})`;
    })
    .join("\n");
}
