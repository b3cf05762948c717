import type { OptionSpec } from "../config/options";
import { serveOptions } from "../config/options";

/** Options of the admin commands (keys, workspaces); --data-dir and --database are shared with serve. */
export const adminOptions = {
  dataDir: serveOptions.dataDir,
  database: serveOptions.database,
  workspace: { flag: "--workspace", env: "SIEVE_WORKSPACE", help: "Workspace id (optional when there is only one)", default: "", parse: (raw: string) => raw.trim() },
  name: { flag: "--name", env: "SIEVE_NAME", help: "Name of the key or workspace", default: "", parse: (raw: string) => raw.trim() },
  init: {
    flag: "--init",
    env: "SIEVE_INIT",
    help: "Create the database when --data-dir holds none (without it the command refuses, so a key never lands in a database no server reads)",
    default: false,
    parse: (raw: string) => /^(1|true|yes|on)$/i.test(raw),
  },
  json: { flag: "--json", env: "SIEVE_JSON", help: "Print one JSON line", default: false, parse: (raw: string) => /^(1|true|yes|on)$/i.test(raw) },
} satisfies Record<string, OptionSpec<unknown>>;
