import { watch, type FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { Logger } from "../logging/logger";
import type { Breakers } from "./breaker";
import { readRoutingFile, RoutingFileError, type ConfigFile, type RoutingDefaults } from "./config-file";
import type { RoutingTable } from "./table";

/** Editors write a file in several steps: changes are read once they have settled this long. */
const SETTLE_MS = 100;

/**
 * The routing file of a running server: read at start (a bad file stops start-up), then again on
 * SIGHUP and whenever the file changes. A file that fails validation is logged and ignored: the
 * last good table keeps serving. Requests in flight keep the route they were given, so a reload
 * never drops one.
 */
export class RoutingFileSource {
  #file: ConfigFile;
  #watcher: FSWatcher | undefined;
  #settle: Timer | undefined;
  readonly #path: string;
  readonly #onSignal = () => this.reload("SIGHUP");

  /** Throws RoutingFileError when the file is missing or invalid. */
  constructor(
    path: string,
    private readonly defaults: RoutingDefaults,
    private readonly breakers: Breakers,
    private readonly log: Logger,
  ) {
    this.#path = resolve(path);
    this.#file = readRoutingFile(this.#path, defaults);
    this.breakers.keepOnly(this.#file.table.targets.map((t) => t.name));
    this.log.info("routing file loaded", this.#summary());
    process.on("SIGHUP", this.#onSignal);
    // The folder is watched, not the file: an editor's save often replaces the file with a new one.
    try {
      this.#watcher = watch(dirname(this.#path), (_event, name) => {
        if (name !== basename(this.#path)) return;
        clearTimeout(this.#settle);
        this.#settle = setTimeout(() => this.reload("file changed"), SETTLE_MS);
      });
    } catch (error) {
      this.log.warn("routing file: cannot watch for changes; reload with SIGHUP", { error: (error as Error).message });
    }
  }

  get table(): RoutingTable {
    return this.#file.table;
  }

  /** The file's `prices:` and `limits:` (src/usage), replaced with the table on a reload. */
  get usage(): Omit<ConfigFile, "table"> {
    return this.#file;
  }

  /** Reads the file again; keeps the current table when the new one is invalid. Returns whether it changed. */
  reload(why: string): boolean {
    try {
      this.#file = readRoutingFile(this.#path, this.defaults);
    } catch (error) {
      if (!(error instanceof RoutingFileError)) throw error;
      this.log.error("routing file rejected; the previous routes stay in force", { why, problems: error.problems, file: this.#path });
      return false;
    }
    this.breakers.keepOnly(this.#file.table.targets.map((t) => t.name));
    this.log.info("routing file reloaded", { why, ...this.#summary() });
    return true;
  }

  close(): void {
    process.off("SIGHUP", this.#onSignal);
    clearTimeout(this.#settle);
    this.#watcher?.close();
  }

  #summary() {
    return { file: this.#path, targets: this.table.targets.length, routes: this.table.routes.length, prices: Object.keys(this.#file.prices).length };
  }
}
