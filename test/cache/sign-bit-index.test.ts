/**
 * The in-memory Hamming search on SQLite (src/db/sign-bit-index.ts; the semantic cache's, and
 * document search's across partitions): exact
 * against a brute-force ranking, kept in step with every way an entry leaves, rebuilt from the
 * rows after a restart, and filled from the old vec0 table by migration 0013.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_SEMANTIC_THRESHOLD, deleteEntry, forgetCandidate, loadEntry, purgeEntries, semanticCandidates, storeEntry, updateCacheSettings, type NewEntry } from "../../src/cache/service";
import { candidateDistanceBound, dot, floatsFromBlob, floatsToBlob, signBits } from "../../src/cache/vector-codec";
import { KEPT_ROWS, nearestAcross, SignBitIndex, SignBitPartition } from "../../src/db/sign-bit-index";
import { openSqlite, SqliteStorage } from "../../src/db/sqlite";
import { assetPaths } from "../../src/runtime/assets";
import { WorkspaceScope } from "../../src/tenancy/scope";
import { createWorkspace } from "../../src/tenancy/service";
import { sharedEmbedder, tempDir } from "../support/sieve";

function seeded(seed: number): () => number {
  return () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
}

function unitVector(random: () => number): Float32Array {
  const v = Float32Array.from({ length: 384 }, () => random() - 0.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

/** The same database seen through an index of its own (nothing loaded or kept), as after a restart. */
const withFreshIndex = (storage: SqliteStorage) => new SqliteStorage(storage.sqlite, storage.db, storage.location, false, new SignBitIndex());

const hamming = (a: Uint8Array, b: Uint8Array) => a.reduce((sum, byte, i) => sum + bitCount(byte ^ b[i]!), 0);
const bitCount = (x: number) => x.toString(2).replaceAll("0", "").length;

describe("SignBitPartition", () => {
  test("the k nearest are exactly the brute-force k nearest, nearest first", () => {
    const random = seeded(7);
    const partition = new SignBitPartition(12);
    const stored = Array.from({ length: 3000 }, (_, id) => ({ id, bits: signBits(unitVector(random)) }));
    for (const { id, bits } of stored) partition.append(id, bits);
    for (let q = 0; q < 20; q++) {
      const query = signBits(unitVector(random));
      const found = partition.nearest(query, 24);
      const distances = found.map((id) => hamming(stored[id]!.bits, query));
      const bruteForce = stored.map(({ bits }) => hamming(bits, query)).sort((a, b) => a - b).slice(0, 24);
      expect(distances).toEqual(bruteForce);
    }
  });

  test("nearestAcross (search's large k): the k nearest over several partitions, among the accepted ids, in brute-force order", () => {
    const random = seeded(9);
    const stored = Array.from({ length: 1500 }, (_, id) => ({ id, bits: signBits(unitVector(random)) }));
    const partitions = [0, 1, 2].map(() => new SignBitPartition(12));
    for (const entry of stored) partitions[entry.id % 3]!.append(entry.id, entry.bits);
    const accepted = (id: number) => id % 5 !== 0;
    for (const k of [1, 24, 400, 1500]) {
      const query = signBits(unitVector(random));
      const found = nearestAcross(partitions, query, k, accepted);
      const bruteForce = stored.filter((entry) => accepted(entry.id)).map((entry) => hamming(entry.bits, query)).sort((a, b) => a - b).slice(0, k);
      expect(found.length).toBe(Math.min(k, 1200));
      expect(new Set(found).size).toBe(found.length);
      expect(found.every(accepted)).toBe(true);
      expect(found.map((id) => hamming(stored[id]!.bits, query))).toEqual(bruteForce);
    }
    expect(nearestAcross([], signBits(unitVector(random)), 10)).toEqual([]);
  });

  test("entries further than maxDistance are left out, however few the others", () => {
    const random = seeded(13);
    const partition = new SignBitPartition(12);
    const query = unitVector(random);
    const near = Float32Array.from(query, (x, i) => (i < 20 ? -x : x)); // 20 signs flipped
    const far = unitVector(random);
    partition.append(1, signBits(near));
    partition.append(2, signBits(far));
    const distanceOfFar = hamming(signBits(far), signBits(query));
    expect(partition.nearest(signBits(query), 24, 20)).toEqual([1]);
    expect(partition.nearest(signBits(query), 24, 19)).toEqual([]);
    expect(partition.nearest(signBits(query), 24, distanceOfFar)).toEqual([1, 2]);
  });

  test("fewer entries than k: all of them; none: nothing", () => {
    const random = seeded(3);
    const partition = new SignBitPartition(12);
    expect(partition.nearest(signBits(unitVector(random)), 24)).toEqual([]);
    partition.append(5, signBits(unitVector(random)));
    partition.append(9, signBits(unitVector(random)));
    expect(partition.nearest(signBits(unitVector(random)), 24).sort()).toEqual([5, 9]);
  });

  test("remove moves the last entry into the gap; add replaces an entry with the same id", () => {
    const random = seeded(11);
    const vectors = Array.from({ length: 5 }, () => signBits(unitVector(random)));
    const partition = new SignBitPartition(12);
    vectors.forEach((bits, id) => partition.append(id, bits));
    expect(partition.remove(1)).toBe(true);
    expect(partition.remove(1)).toBe(false);
    expect(partition.size).toBe(4);
    // Each remaining entry is still found by its own bits, at distance 0.
    for (const id of [0, 2, 3, 4]) expect(partition.nearest(vectors[id]!, 1)).toEqual([id]);
    partition.add(3, vectors[1]!);
    expect(partition.size).toBe(4);
    expect(partition.nearest(vectors[1]!, 1)).toEqual([3]);
  });

  test("sign bits of the wrong length are refused", () => {
    expect(() => new SignBitPartition(12).append(1, new Uint8Array(47))).toThrow("expected 48");
  });
});

describe("SignBitIndex", () => {
  const bits = signBits(unitVector(seeded(5)));

  test("changes made while a partition's rows are read are applied after them", async () => {
    const index = new SignBitIndex().forWorkspace("w1");
    let release!: (rows: { id: number; bits: Uint8Array }[]) => void;
    const loading = index.partition("s", () => new Promise((resolve) => (release = resolve)));
    index.add("s", 2, bits); // committed after the rows were read
    index.remove("s", 1); // deleted after the rows were read
    release([{ id: 1, bits }]);
    const partition = await loading;
    expect(partition.nearest(bits, 10)).toEqual([2]);
    // A second lookup gets the same partition without loading again.
    expect(await index.partition("s", () => Promise.reject(new Error("loaded twice")))).toBe(partition);
  });

  test("kept rows: per workspace and scope, forgotten with their entry, their scope (drop) or workspace (clear), at most KEPT_ROWS, the oldest row of the partition kept into longest ago going first", () => {
    const index = new SignBitIndex();
    const [a, b] = [index.forWorkspace("wa"), index.forWorkspace("wb")];
    a.keep("s", 1, "a-s-1");
    a.keep("t", 1, "a-t-1");
    b.keep("s", 1, "b-s-1");
    expect(a.kept("s", [1, 2])).toEqual(["a-s-1", undefined]);
    expect(b.kept("t", [1])).toEqual([undefined]); // another workspace's scope of the same name holds nothing of a's
    a.remove("s", 1);
    expect(a.kept("s", [1])).toEqual([undefined]);
    a.keep("s", 2, "a-s-2");
    a.drop("s");
    expect(a.kept("s", [2])).toEqual([undefined]);
    expect(a.kept("t", [1])).toEqual(["a-t-1"]);
    a.clear();
    expect(a.kept("t", [1])).toEqual([undefined]);
    expect(b.kept("s", [1])).toEqual(["b-s-1"]);
    for (let id = 100; id < 100 + KEPT_ROWS; id++) a.keep("s", id, id);
    expect(b.kept("s", [1])).toEqual([undefined]); // the longest kept went first
    expect(a.kept("s", [100, 100 + KEPT_ROWS - 1])).toEqual([100, 100 + KEPT_ROWS - 1]);
  });

  test("a partition is per workspace and scope; clear forgets only its own workspace", async () => {
    const index = new SignBitIndex();
    const [a, b] = [index.forWorkspace("wa"), index.forWorkspace("wb")];
    await a.partition("s", async () => [{ id: 1, bits }]);
    await b.partition("s", async () => [{ id: 2, bits }]);
    a.clear();
    expect((await a.partition("s", async () => [])).size).toBe(0);
    expect((await b.partition("s", async () => [])).nearest(bits, 5)).toEqual([2]);
  });

  test("empty partitions are not kept: one never filled, one emptied by removals", async () => {
    const index = new SignBitIndex();
    const view = index.forWorkspace("w");
    await view.partition("empty", async () => []);
    await view.partition("one", async () => [{ id: 1, bits }]);
    expect(index.size).toEqual({ partitions: 1, entries: 1 });
    view.add("empty", 2, bits); // not loaded: its next lookup reads the row
    view.remove("one", 1);
    expect(index.size).toEqual({ partitions: 0, entries: 0 });
    expect((await view.partition("empty", async () => [{ id: 2, bits }])).nearest(bits, 1)).toEqual([2]);
  });

  test("beyond its limits the least recently searched partitions go, and load again from their rows when searched", async () => {
    const index = new SignBitIndex({ maxPartitions: 3, maxEntries: 5 });
    const view = index.forWorkspace("w");
    const rows = (first: number, count: number) => async () => Array.from({ length: count }, (_, i) => ({ id: first + i, bits }));
    await view.partition("a", rows(10, 1));
    await view.partition("b", rows(20, 1));
    await view.partition("c", rows(30, 1));
    await view.partition("a", () => Promise.reject(new Error("a is loaded"))); // a: most recently searched
    await view.partition("d", rows(40, 1)); // four partitions: b, the least recently searched, goes
    expect(index.size).toEqual({ partitions: 3, entries: 3 });
    let reloaded = false;
    await view.partition("b", async () => ((reloaded = true), [{ id: 20, bits }]));
    expect(reloaded).toBe(true);
    // Too many entries: older partitions go, never the one being searched, even when it alone is over.
    const big = await view.partition("big", rows(100, 7));
    expect(big.size).toBe(7);
    expect(index.size).toEqual({ partitions: 1, entries: 7 });
  });

  test("a failed load leaves nothing behind: the next lookup loads again", async () => {
    const index = new SignBitIndex().forWorkspace("w");
    await expect(index.partition("s", () => Promise.reject(new Error("database gone")))).rejects.toThrow("database gone");
    expect((await index.partition("s", async () => [{ id: 4, bits }])).nearest(bits, 1)).toEqual([4]);
  });
});

describe("on SQLite", () => {
  const assets = assetPaths();
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const open = (dataDir: string, migrationsDir = assets.migrationsDir) => openSqlite({ dataDir, vecExtension: assets.vecExtension, migrationsDir });
  const entry = (n: number, scopeKey = "scope-a"): NewEntry => ({ key: `key-${n}`, scopeKey, model: "m", prompt: `prompt ${n}`, completion: `{"n":${n}}`, upstreamMs: 10, ttlSeconds: 3600 });
  const loadedSize = async (scope: WorkspaceScope, scopeKey: string) => (await scope.signBits!.partition(scopeKey, () => Promise.reject(new Error("not loaded")))).size;

  async function workspaceWith(storage: SqliteStorage, count: number, random: () => number) {
    const workspace = await createWorkspace(storage.db, "ws");
    const scope = new WorkspaceScope(storage, workspace.id);
    const vectors: Float32Array[] = [];
    for (let n = 0; n < count; n++) {
      vectors.push(unitVector(random));
      await storeEntry(scope, entry(n), 1000, Date.now(), vectors[n]);
    }
    return { workspace, scope, vectors };
  }

  test("entries stored before a restart are found after it (the partition is rebuilt from the rows)", async () => {
    const dataDir = tempDir("sieve-signbits-");
    dirs.push(dataDir);
    const random = seeded(21);
    const first = open(dataDir);
    const { workspace, vectors } = await workspaceWith(first, 50, random);
    // Enough rows more that loading the partition takes two pages (5,000 each).
    const insert = first.sqlite.query(
      `INSERT INTO cache_entries (workspace_id, key, scope_key, model, prompt, completion, bytes, upstream_ms, created_at, last_used_at, expires_at, embedding, sign_bits)
       VALUES ($w, $key, 'scope-a', 'm', $key, '{}', 1, 1, 0, 0, $expires, $floats, $bits)`,
    );
    first.sqlite.transaction(() => {
      for (let n = 50; n < 5100; n++) {
        vectors.push(unitVector(random));
        insert.run({ w: workspace.id, key: `key-${n}`, expires: Date.now() + 3_600_000, floats: new Uint8Array(vectors[n]!.buffer), bits: signBits(vectors[n]!) });
      }
    })();
    await first.close();

    const second = open(dataDir);
    const scope = new WorkspaceScope(second, workspace.id);
    for (const n of [0, 17, 49, 5099]) {
      const [best] = (await semanticCandidates(scope, "scope-a", vectors[n]!, Date.now(), DEFAULT_SEMANTIC_THRESHOLD)).sort((a, b) => b.similarity - a.similarity);
      expect(best!.entry.key).toBe(`key-${n}`);
      expect(best!.similarity).toBeCloseTo(1, 5);
    }
    expect(await loadedSize(scope, "scope-a")).toBe(5100);
    await second.close();
  });

  test("every way an entry leaves takes it out of the index: replaced, evicted, deleted, expired, purged", async () => {
    const dataDir = tempDir("sieve-signbits-");
    dirs.push(dataDir);
    const storage = open(dataDir);
    const random = seeded(33);
    const { scope, vectors } = await workspaceWith(storage, 10, random);
    await semanticCandidates(scope, "scope-a", vectors[0]!, Date.now(), DEFAULT_SEMANTIC_THRESHOLD); // loads the partition
    expect(await loadedSize(scope, "scope-a")).toBe(10);

    await storeEntry(scope, entry(3), 1000, Date.now(), unitVector(random)); // replaced: same key, new id
    expect(await loadedSize(scope, "scope-a")).toBe(10);
    await updateCacheSettings(scope, { max_entries: 8 }); // the two least recently used go
    expect(await loadedSize(scope, "scope-a")).toBe(8);
    expect(await deleteEntry(scope, "key-5")).toBe(true);
    expect(await loadedSize(scope, "scope-a")).toBe(7);
    await storeEntry(scope, { ...entry(20), ttlSeconds: 1 }, 1000, Date.now() - 5000, unitVector(random)); // stored already expired
    await storeEntry(scope, entry(21), 1000, Date.now(), unitVector(random)); // the next store deletes the expired one
    expect(await loadedSize(scope, "scope-a")).toBe(8);
    await purgeEntries(scope);
    expect(await loadedSize(scope, "scope-a").catch((error: Error) => error.message)).toBe("not loaded");
    expect(await semanticCandidates(scope, "scope-a", vectors[9]!, Date.now(), DEFAULT_SEMANTIC_THRESHOLD)).toEqual([]);
    await storage.close();
  });

  test("a row deleted behind the index's back: read from the database it is no candidate and leaves the index; kept in memory it is a candidate whose row is gone until forgotten", async () => {
    const dataDir = tempDir("sieve-signbits-");
    dirs.push(dataDir);
    const storage = open(dataDir);
    const { workspace, vectors } = await workspaceWith(storage, 5, seeded(44));
    // A scope of a fresh index: nothing kept, every row is read from the database.
    const reread = new WorkspaceScope(withFreshIndex(storage), workspace.id);
    const stored = new WorkspaceScope(storage, workspace.id);
    // Loads the partition; at 0.99 only key-0 itself is near enough to be read (and kept).
    await semanticCandidates(reread, "scope-a", vectors[0]!, Date.now(), 0.99);
    await semanticCandidates(stored, "scope-a", vectors[0]!, Date.now(), 0.99);
    storage.sqlite.query("DELETE FROM cache_entries WHERE workspace_id = $w AND key = 'key-2'").run({ w: workspace.id });
    // Random vectors are far apart: a threshold of -1 lifts the distance bound, so every entry is a candidate.
    const candidates = await semanticCandidates(reread, "scope-a", vectors[2]!, Date.now(), -1);
    expect(candidates.map((c) => c.entry.key).sort()).toEqual(["key-0", "key-1", "key-3", "key-4"]);
    expect(await loadedSize(reread, "scope-a")).toBe(4);

    // The storing scope kept key-2's row when it stored it: the lookup (CacheStage) loads the chosen entry, finds nothing and forgets it.
    const kept = await semanticCandidates(stored, "scope-a", vectors[2]!, Date.now(), -1);
    const best = kept.toSorted((a, b) => b.similarity - a.similarity)[0]!;
    expect(best.entry.key).toBe("key-2");
    expect(await loadEntry(stored, best.entry.id)).toBeUndefined();
    forgetCandidate(stored, "scope-a", best.entry.id);
    const after = await semanticCandidates(stored, "scope-a", vectors[2]!, Date.now(), -1);
    expect(after.map((c) => c.entry.key).sort()).toEqual(["key-0", "key-1", "key-3", "key-4"]);
    await storage.close();
  });

  test("a stored entry's row is kept beside its sign bits: a search that finds it reads nothing, with the same similarity as from its row; expired or removed, it is not kept", async () => {
    const dataDir = tempDir("sieve-signbits-");
    dirs.push(dataDir);
    const storage = open(dataDir);
    const random = seeded(55);
    const { workspace, scope, vectors } = await workspaceWith(storage, 6, random);
    const queries: string[] = [];
    const spied = new WorkspaceScope(
      new Proxy(storage, { get: (target, name) => (name === "all" ? (sql: string, params: object) => (queries.push(sql), target.all(sql, params as never)) : Reflect.get(target, name)) }),
      workspace.id,
    );
    const fromMemory = await semanticCandidates(spied, "scope-a", vectors[1]!, Date.now(), -1);
    expect(queries.filter((sql) => sql.includes("cache_entries e"))).toEqual([]); // no row read, only the partition's load
    const fromRows = await semanticCandidates(new WorkspaceScope(withFreshIndex(storage), workspace.id), "scope-a", vectors[1]!, Date.now(), -1);
    const byKey = (list: typeof fromRows) => Object.fromEntries(list.map((c) => [c.entry.key, [c.entry.id, c.prompt, c.similarity]]));
    expect(byKey(fromMemory)).toEqual(byKey(fromRows));
    expect(fromMemory).toHaveLength(6);

    // Past its expiry a kept row is not used: the row is read, and the database no longer offers it.
    queries.length = 0;
    const later = await semanticCandidates(spied, "scope-a", vectors[1]!, Date.now() + 3_700_000, -1);
    expect(later).toEqual([]);
    expect(queries.some((sql) => sql.includes("cache_entries e"))).toBe(true);

    // A long prompt is never kept (a tenant's long prompts must not fill the server's memory): its row is read each time.
    const long = unitVector(random);
    await storeEntry(scope, { ...entry(7), prompt: "word ".repeat(600) }, 1000, Date.now(), long);
    queries.length = 0;
    const longFound = await semanticCandidates(spied, "scope-a", long, Date.now(), 0.99);
    expect(longFound.map((c) => c.entry.key)).toEqual(["key-7"]);
    expect(queries.filter((sql) => sql.includes("cache_entries e"))).toHaveLength(1);
    queries.length = 0;
    await semanticCandidates(spied, "scope-a", long, Date.now(), 0.99);
    expect(queries.filter((sql) => sql.includes("cache_entries e"))).toHaveLength(1);

    // Removed entries take their kept rows with them (here: deleted through the service).
    const fresh = (await workspaceWith(storage, 0, random)).scope;
    const v = unitVector(random);
    await storeEntry(fresh, entry(1), 1000, Date.now(), v);
    expect(await deleteEntry(fresh, "key-1")).toBe(true);
    expect(await semanticCandidates(fresh, "scope-a", v, Date.now(), -1)).toEqual([]);
    await storage.close();
  });

  test("migration 0013 copies the sign bits of entries stored in the vec0 table before it", async () => {
    const dataDir = tempDir("sieve-signbits-");
    const before = tempDir("sieve-migrations-");
    dirs.push(dataDir, before);
    // The migrations as they were before 0013.
    cpSync(assets.migrationsDir, before, { recursive: true });
    const journalPath = join(before, "meta", "_journal.json");
    const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
    journal.entries = journal.entries.slice(0, journal.entries.findIndex((e) => e.tag === "0013_cache_sign_bits")); // later ones too: the migrator applies only what is newer than the last applied
    writeFileSync(journalPath, JSON.stringify(journal));
    const old = open(dataDir, before);
    // Written as that schema had it: the drizzle schema of today has columns added after 0013.
    const workspace = { id: crypto.randomUUID() };
    old.sqlite.query("INSERT INTO workspaces (id, name, created_at) VALUES ($id, 'ws', $now)").run({ id: workspace.id, now: Date.now() });
    const random = seeded(55);
    const vectors = [unitVector(random), unitVector(random)];
    vectors.forEach((vector, n) => {
      const { id } = old.sqlite
        .query(
          `INSERT INTO cache_entries (workspace_id, key, scope_key, model, prompt, completion, bytes, upstream_ms, created_at, last_used_at, expires_at, embedding)
           VALUES ($w, $key, 'scope-a', 'm', $prompt, '{}', 1, 1, 0, 0, $expires, $floats) RETURNING id`,
        )
        .get({ w: workspace.id, key: `key-${n}`, prompt: `prompt ${n}`, expires: Date.now() + 3_600_000, floats: new Uint8Array(vector.buffer) }) as { id: number };
      old.sqlite.query("INSERT INTO cache_vectors (entry_id, workspace_id, scope_key, embedding) VALUES ($id, $w, 'scope-a', vec_bit($bits))").run({ id, w: workspace.id, bits: signBits(vector) });
    });
    await old.close();

    const migrated = open(dataDir);
    const rows = migrated.sqlite.query("SELECT key, sign_bits FROM cache_entries ORDER BY key").all() as { key: string; sign_bits: Uint8Array }[];
    expect(rows.map((row) => [row.key, Buffer.from(row.sign_bits).equals(Buffer.from(signBits(vectors[Number(row.key.slice(4))]!)))])).toEqual([
      ["key-0", true],
      ["key-1", true],
    ]);
    expect(migrated.sqlite.query("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'cache_vectors%'").get()).toEqual({ n: 0 });
    const [best] = (await semanticCandidates(new WorkspaceScope(migrated, workspace.id), "scope-a", vectors[1]!, Date.now(), DEFAULT_SEMANTIC_THRESHOLD)).sort((a, b) => b.similarity - a.similarity);
    expect(best!.entry.key).toBe("key-1");
    await migrated.close();
  });
});

test("a stored vector reads back the same from an aligned blob (a view) and from an unaligned one (a copy)", () => {
  const vector = unitVector(seeded(7));
  const aligned = new Uint8Array(floatsToBlob(vector));
  const shifted = new Uint8Array(aligned.byteLength + 1);
  shifted.set(aligned, 1);
  const unaligned = shifted.subarray(1);
  expect(unaligned.byteOffset % 4).not.toBe(0);
  expect(floatsFromBlob(aligned)).toEqual(vector);
  expect(floatsFromBlob(unaligned)).toEqual(vector);
  expect(floatsFromBlob(aligned).buffer).toBe(aligned.buffer);
});

test("the distance bound keeps every pair of real sentences at or above a threshold, and leaves out unrelated ones", async () => {
  const embedder = await sharedEmbedder();
  // Written for this test: rewordings, near questions and unrelated ones.
  const texts = [
    "How do I reset my password?",
    "What are the steps to reset my password?",
    "I forgot my password, how can I change it?",
    "How can I change the email address on my account?",
    "What is the capital of France?",
    "Which city is the capital of France?",
    "Tell me the capital city of Germany.",
    "Write a haiku about autumn leaves.",
    "Compose a short poem about falling leaves in autumn.",
    "How many grams of protein are in an egg?",
    "Explain how a binary search works.",
    "What does binary search do and how does it work?",
    "Recommend a good book about the history of Rome.",
    "Summarise this invoice for me.",
    "Translate 'good morning' into Spanish.",
    "What's the weather like in Lisbon tomorrow?",
  ];
  const vectors = await embedder.embedMany(texts);
  const bits = vectors.map(signBits);
  let unrelatedBeyond = 0;
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const cosine = dot(vectors[i]!, vectors[j]!);
      const distance = hamming(bits[i]!, bits[j]!);
      for (const threshold of [0.5, 0.6, 0.7, 0.8, 0.9, 0.95]) if (cosine >= threshold) expect(distance).toBeLessThanOrEqual(candidateDistanceBound(threshold));
      if (cosine < 0.3 && distance > candidateDistanceBound(DEFAULT_SEMANTIC_THRESHOLD)) unrelatedBeyond++;
    }
  }
  expect(unrelatedBeyond).toBeGreaterThan(20);
  expect(candidateDistanceBound(-1)).toBeGreaterThanOrEqual(384); // no bound at all
});
