/**
 * PostgreSQL going away under a running Sieve: /readyz says 503 while it is unreachable and 200
 * again by itself once it is back (no restart); a request that needs the database meanwhile gets
 * a clear 503 JSON error, never a hang or a 500 with a stack.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startCluster, type PgCluster } from "../../scripts/pg/cluster";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";

let cluster: PgCluster;
let sieve: TestSieve;
let tenant: Tenant;

beforeAll(async () => {
  cluster = await startCluster();
  sieve = await startSieve({ database: cluster.url });
  tenant = await sieve.tenant("outage");
});

afterAll(async () => {
  await sieve?.close();
  cluster?.stop();
});

const ready = () => fetch(`${sieve.url}/readyz`).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

test("database down: /readyz 503 and requests 503 JSON; back up: ready again without a restart", async () => {
  expect((await ready()).status).toBe(200);
  expect((await fetch(`${sieve.url}/v1/cache/stats`, { headers: tenant.serviceHeaders })).status).toBe(200);

  cluster.pause();
  try {
    const down = await ready();
    expect(down).toMatchObject({ status: 503, body: { status: "database_unavailable", checks: { database: false } } });
    const response = await fetch(`${sieve.url}/v1/cache/stats`, { headers: tenant.serviceHeaders });
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("1");
    const body: any = await response.json();
    expect(body).toEqual({ detail: expect.stringContaining("database"), status_code: 503, code: "database_unavailable" });
  } finally {
    cluster.start();
  }

  for (let i = 0; i < 200 && (await ready()).status !== 200; i++) await Bun.sleep(50);
  expect((await ready()).status).toBe(200);
  expect((await fetch(`${sieve.url}/v1/cache/stats`, { headers: tenant.serviceHeaders })).status).toBe(200);
});
