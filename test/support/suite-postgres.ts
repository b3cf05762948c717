/**
 * SIEVE_TEST_DATABASE=postgres runs a suite against PostgreSQL unchanged: one throw-away cluster
 * per test process (scripts/pg/cluster.ts), a fresh database per server, the cluster removed after
 * the last test (test/support/preload.ts; bun test fires no process "exit" handler).
 */
import { startCluster, type PgCluster } from "../../scripts/pg/cluster";

let cluster: Promise<PgCluster> | undefined;
let databases = 0;

/** A new empty database on the suite's cluster, or undefined when the suite runs on SQLite. */
export async function freshPostgresDatabase(): Promise<string | undefined> {
  if (process.env.SIEVE_TEST_DATABASE !== "postgres") return undefined;
  return (await (cluster ??= startCluster())).createDatabase(`sieve_test_${++databases}`);
}

export async function stopSuiteCluster(): Promise<void> {
  const started = cluster;
  cluster = undefined;
  (await started)?.stop();
}
