/**
 * A throw-away PostgreSQL cluster for tests and benches: initdb in a temporary directory, started
 * on a free port on 127.0.0.1, removed by stop(). initdb refuses root, so as root the cluster runs
 * as the `postgres` OS user (Debian's package creates it). Binaries: PG_BIN, else Debian's PostgreSQL 15.
 *
 *   bun scripts/pg/cluster.ts   starts one, prints its URL, stops and removes it on Ctrl-C
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type PgCluster = {
  url: string;
  port: number;
  dir: string;
  /** A URL of a new, empty database on this cluster. */
  createDatabase(name: string): string;
  /** Stops the server (fast shutdown: connections are cut), keeping its data; `start` brings it back on the same port. */
  pause(): void;
  start(): void;
  /** Stops the server and removes the directory (synchronous, so it also works in an exit handler). */
  stop(): void;
};

const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin";

export function postgresAvailable(): boolean {
  return existsSync(join(PG_BIN, "initdb")) && existsSync(join(PG_BIN, "pg_ctl"));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(command: string[], asUser: string | undefined): void {
  const argv = asUser ? ["su", asUser, "-s", "/bin/sh", "-c", command.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ")] : command;
  const result = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`${command[0]} failed (exit ${result.exitCode}): ${result.stderr.toString()}${result.stdout.toString()}`);
}

export async function startCluster(database = "sieve"): Promise<PgCluster> {
  if (!postgresAvailable()) throw new Error(`PostgreSQL binaries not found in ${PG_BIN} (install postgresql-15 or set PG_BIN)`);
  const asUser = process.getuid?.() === 0 ? "postgres" : undefined;
  const dir = mkdtempSync(join(tmpdir(), "sieve-pg-"));
  chmodSync(dir, 0o777);
  if (asUser) Bun.spawnSync(["chown", asUser, dir]);
  const port = await freePort();
  const data = join(dir, "data");
  run([join(PG_BIN, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync"], asUser);
  const start = () =>
    run(
      [join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-l", join(dir, "log"), "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300`, "start"],
      asUser,
    );
  const createDatabase = (name: string) => {
    run([join(PG_BIN, "createdb"), "-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name], asUser);
    return `postgres://postgres@127.0.0.1:${port}/${name}`;
  };
  start();
  let stopped = false;
  return {
    url: createDatabase(database),
    port,
    dir,
    createDatabase,
    pause: () => run([join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-m", "fast", "stop"], asUser),
    start,
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run([join(PG_BIN, "pg_ctl"), "-D", data, "-w", "-m", "immediate", "stop"], asUser);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

if (import.meta.main) {
  const cluster = await startCluster();
  console.log(cluster.url);
  const stop = () => {
    cluster.stop();
    process.exit(0);
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  await new Promise(() => {});
}
