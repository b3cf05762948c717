/**
 * The Hamming-distance search on SQLite, in the server's memory: every entry's sign bits (48 bytes
 * for 384 dimensions), one partition per workspace and scope, scanned exactly for the k nearest.
 * The semantic cache keeps one partition per conversation scope (rows: cache_entries.sign_bits);
 * document search one per document variant (rows: chunk_embeddings.sign_bits,
 * src/documents/search/vector-index.ts). One process owns a SQLite file, so this copy is the only
 * one; the rows stay the record and a partition is loaded from them on its first lookup.
 * Beside recent entries a caller may keep a row of its own (`keep`: the cache's candidate rows),
 * so a search that finds them reads nothing. PostgreSQL, shared by several instances, searches in
 * SQL instead.
 *
 * Measured (docs/cache.md, *Storage*): sqlite-vec 0.1.9's KNN costs ~60 ns per entry at k = 24
 * (its per-chunk selection is O(chunk × k)); this scan ~11–18 ns (a 16-bit popcount table),
 * 0.11–0.18 ms for 10,000 entries. Memory: 56 bytes per loaded entry (bits and id), with room
 * to grow up to twice that.
 */

/** Bits set in every 16-bit value. */
const POPCOUNT16 = new Uint8Array(1 << 16);
for (let i = 1; i < POPCOUNT16.length; i++) POPCOUNT16[i] = (i & 1) + POPCOUNT16[i >> 1]!;

const popcount = (x: number) => POPCOUNT16[x & 0xffff]! + POPCOUNT16[x >>> 16]!;

/** Sign bits as 32-bit words (a copy: a blob from SQLite need not be 4-byte aligned). */
function words(bits: Uint8Array, wordsPerVector: number): Uint32Array {
  const out = new Uint32Array(wordsPerVector);
  new Uint8Array(out.buffer).set(bits.subarray(0, wordsPerVector * 4));
  return out;
}

/** One scope's entries: ids and their sign bits, packed. */
export class SignBitPartition {
  #ids: number[] = [];
  #bits: Uint32Array;

  constructor(readonly wordsPerVector: number) {
    this.#bits = new Uint32Array(wordsPerVector); // most conversation scopes hold one entry
  }

  get size(): number {
    return this.#ids.length;
  }

  /** Adds an entry, replacing the one with the same id (a change can arrive after the rows that already hold it). */
  add(id: number, bits: Uint8Array): void {
    this.remove(id);
    this.append(id, bits);
  }

  /** Adds an entry known not to be here (the rows of a load). */
  append(id: number, bits: Uint8Array): void {
    if (bits.length !== this.wordsPerVector * 4) throw new Error(`sign bits of ${bits.length} bytes, expected ${this.wordsPerVector * 4}`);
    const slot = this.#ids.length;
    if ((slot + 1) * this.wordsPerVector > this.#bits.length) {
      const grown = new Uint32Array(this.#bits.length * 2);
      grown.set(this.#bits);
      this.#bits = grown;
    }
    this.#bits.set(words(bits, this.wordsPerVector), slot * this.wordsPerVector);
    this.#ids.push(id);
  }

  /** Removes an entry by moving the last one into its slot; false when it was not here. */
  remove(id: number): boolean {
    const slot = this.#ids.indexOf(id);
    if (slot < 0) return false;
    const last = this.#ids.length - 1;
    const w = this.wordsPerVector;
    if (slot !== last) {
      this.#ids[slot] = this.#ids[last]!;
      this.#bits.copyWithin(slot * w, last * w, (last + 1) * w);
    }
    this.#ids.pop();
    return true;
  }

  /** The ids of the k entries with the fewest differing bits, at most `maxDistance`, nearest first (ties: the earlier slot). */
  nearest(bits: Uint8Array, k: number, maxDistance = Number.POSITIVE_INFINITY): number[] {
    const query = words(bits, this.wordsPerVector);
    const w = this.wordsPerVector;
    const data = this.#bits;
    const n = this.#ids.length;
    const best = new Int32Array(k); // slots
    const bestDistance = new Int32Array(k);
    let found = 0;
    for (let slot = 0, offset = 0; slot < n; slot++, offset += w) {
      let distance = 0;
      for (let i = 0; i < w; i++) distance += popcount(data[offset + i]! ^ query[i]!);
      if (distance > maxDistance || (found === k && distance >= bestDistance[k - 1]!)) continue;
      // Insertion into the sorted top-k: k is small (24); nearestAcross serves a large k.
      let j = found < k ? found++ : k - 1;
      while (j > 0 && bestDistance[j - 1]! > distance) {
        bestDistance[j] = bestDistance[j - 1]!;
        best[j] = best[j - 1]!;
        j--;
      }
      bestDistance[j] = distance;
      best[j] = slot;
    }
    return Array.from(best.subarray(0, found), (slot) => this.#ids[slot]!);
  }

  /**
   * Every entry's distance to the query (-1 for an entry `accept` refuses), counted into
   * `histogram` (index = distance).
   */
  distances(query: Uint32Array, histogram: Uint32Array, accept?: (id: number) => boolean): Int16Array {
    const w = this.wordsPerVector;
    const data = this.#bits;
    const ids = this.#ids;
    const out = new Int16Array(ids.length);
    for (let slot = 0, offset = 0; slot < ids.length; slot++, offset += w) {
      if (accept && !accept(ids[slot]!)) {
        out[slot] = -1;
        continue;
      }
      let distance = 0;
      for (let i = 0; i < w; i++) distance += popcount(data[offset + i]! ^ query[i]!);
      out[slot] = distance;
      histogram[distance]!++;
    }
    return out;
  }

  idAt(slot: number): number {
    return this.#ids[slot]!;
  }
}

/**
 * The ids of the k entries nearest to `bits` over several partitions (those `accept` accepts),
 * nearest first; ties: earlier partition, then earlier slot. For a large k (search re-scores
 * 1,000): a distance is an integer of 0…dimensions, so a histogram of them gives the k-th
 * distance, and the entries within it are picked in a second pass, with no insertion into a
 * sorted top-k.
 */
export function nearestAcross(partitions: SignBitPartition[], bits: Uint8Array, k: number, accept?: (id: number) => boolean): number[] {
  if (partitions.length === 0 || k <= 0) return [];
  const query = words(bits, partitions[0]!.wordsPerVector);
  const histogram = new Uint32Array(32 * query.length + 1);
  const distances = partitions.map((partition) => partition.distances(query, histogram, accept));
  // The k-th distance, and how many entries at exactly that distance are taken.
  let threshold = 0;
  let below = 0;
  while (threshold < histogram.length && below + histogram[threshold]! < k) below += histogram[threshold++]!;
  let tiesLeft = k - below;
  const picked: { id: number; distance: number }[] = [];
  partitions.forEach((partition, p) => {
    const own = distances[p]!;
    for (let slot = 0; slot < own.length; slot++) {
      const distance = own[slot]!;
      if (distance < 0 || distance > threshold) continue;
      if (distance === threshold && tiesLeft-- <= 0) continue;
      picked.push({ id: partition.idAt(slot), distance });
    }
  });
  // A stable sort: ties stay in partition and slot order.
  return picked.sort((a, b) => a.distance - b.distance).map((entry) => entry.id);
}

type Row = { id: number; bits: Uint8Array };
type Change = { add: Row } | { remove: number };
type Entry = { partition: SignBitPartition; loading?: undefined } | { loading: Promise<SignBitPartition>; pending: Change[] };

/**
 * How much stays in memory. Every conversation is a scope of its own, so over a long run far more
 * scopes are searched than are worth keeping: beyond these limits the least recently searched
 * partitions are dropped, and read from their rows again when next searched (a one-entry scope in
 * ~0.05 ms, 10,000 entries in ~20 ms). Empty partitions are never kept.
 */
export type SignBitLimits = { maxPartitions: number; maxEntries: number };

/**
 * Rows kept beside recently added or read entries (the cache's candidate rows: key, prompt, vector),
 * so a search that finds them reads no row from the database; ~2 KB each, so ~8 MB in all (the
 * cache keeps no row whose prompt is longer than 2,048 characters: at most ~25 MB).
 */
export const KEPT_ROWS = 4096;

/** At most ~55–110 MB of entries (1,000,000) and ~6 MB of partition overhead (20,000). */
export const DEFAULT_SIGN_BIT_LIMITS: SignBitLimits = { maxPartitions: 20_000, maxEntries: 1_000_000 };

/**
 * Loaded partitions of one storage, keyed by workspace and scope, least recently searched first.
 * WorkspaceScope hands out one workspace's view (`forWorkspace`), so a service reaches its own
 * workspace's partitions only. Changes are applied after their transaction has committed.
 */
export class SignBitIndex {
  readonly #partitions = new Map<string, Entry>();
  /**
   * Rows callers keep for entries (`keep`): per partition key, by id. Partitions in the order they
   * were last kept into, rows in the order they were kept: the first row of the first partition goes
   * first. A partition's rows go with it in one step (drop, clear).
   */
  readonly #kept = new Map<string, Map<number, unknown>>();
  #keptRows = 0;
  /** Entries in the loaded partitions. */
  #entries = 0;

  constructor(
    readonly limits: SignBitLimits = DEFAULT_SIGN_BIT_LIMITS,
    readonly dimensions = 384,
  ) {
    if (dimensions % 32 !== 0) throw new Error(`sign-bit index needs a multiple of 32 dimensions, got ${dimensions}`);
  }

  /** Loaded partitions and their entries. */
  get size(): { partitions: number; entries: number } {
    let partitions = 0;
    for (const entry of this.#partitions.values()) if (!entry.loading) partitions++;
    return { partitions, entries: this.#entries };
  }

  forWorkspace(workspaceId: string): WorkspaceSignBits {
    return {
      partition: (scopeKey, load) => this.#partition(key(workspaceId, scopeKey), load),
      add: (scopeKey, id, bits) => this.#change(key(workspaceId, scopeKey), { add: { id, bits } }),
      remove: (scopeKey, id) => {
        this.#forgetKept(key(workspaceId, scopeKey), id);
        this.#change(key(workspaceId, scopeKey), { remove: id });
      },
      drop: (scopeKey) => {
        this.#forgetKept(key(workspaceId, scopeKey));
        this.#drop(key(workspaceId, scopeKey));
      },
      clear: () => {
        const prefix = key(workspaceId, "");
        for (const k of [...this.#kept.keys()]) if (k.startsWith(prefix)) this.#forgetKept(k);
        for (const k of [...this.#partitions.keys()]) if (k.startsWith(prefix)) this.#drop(k);
      },
      keep: (scopeKey, id, row) => this.#keep(key(workspaceId, scopeKey), id, row),
      kept: <T>(scopeKey: string, ids: number[]) => {
        const rows = this.#kept.get(key(workspaceId, scopeKey));
        return ids.map((id) => rows?.get(id) as T | undefined);
      },
    };
  }

  /** The partition, loading it with `load` on first use; changes made while its rows are read are applied after them. */
  async #partition(k: string, load: () => Promise<{ id: number; bits: Uint8Array }[]>): Promise<SignBitPartition> {
    const entry = this.#partitions.get(k);
    if (entry?.loading) return entry.loading;
    if (entry) {
      // Most recently searched last.
      this.#partitions.delete(k);
      this.#partitions.set(k, entry);
      return entry.partition;
    }
    const pending: Change[] = [];
    const loading = (async () => {
      const partition = new SignBitPartition(this.dimensions / 32);
      for (const row of await load()) partition.append(row.id, row.bits);
      for (const change of pending) apply(partition, change);
      return partition;
    })();
    this.#partitions.set(k, { loading, pending });
    try {
      const partition = await loading;
      // Purged meanwhile: the next lookup reads the rows again.
      if (this.#partitions.get(k)?.loading === loading) {
        this.#partitions.delete(k);
        if (partition.size > 0) {
          this.#partitions.set(k, { partition });
          this.#entries += partition.size;
          this.#evictBeyondLimits(k);
        }
      }
      return partition;
    } catch (error) {
      if (this.#partitions.get(k)?.loading === loading) this.#partitions.delete(k);
      throw error;
    }
  }

  #change(k: string, change: Change): void {
    const entry = this.#partitions.get(k);
    if (!entry) return; // not loaded: its first lookup reads the rows
    if (entry.loading) {
      entry.pending.push(change);
      return;
    }
    const before = entry.partition.size;
    apply(entry.partition, change);
    this.#entries += entry.partition.size - before;
    if (entry.partition.size === 0) this.#drop(k);
    else this.#evictBeyondLimits(k);
  }

  #keep(k: string, id: number, row: unknown): void {
    const rows = this.#kept.get(k) ?? new Map<number, unknown>();
    // Last kept into: last in line to lose a row.
    this.#kept.delete(k);
    this.#kept.set(k, rows);
    if (!rows.delete(id)) this.#keptRows++;
    rows.set(id, row);
    while (this.#keptRows > KEPT_ROWS) {
      const [first, firstRows] = this.#kept.entries().next().value!;
      firstRows.delete(firstRows.keys().next().value!);
      this.#keptRows--;
      if (firstRows.size === 0) this.#kept.delete(first);
    }
  }

  /** One kept row, or (without `id`) all of a partition's. */
  #forgetKept(k: string, id?: number): void {
    const rows = this.#kept.get(k);
    if (!rows) return;
    if (id === undefined) {
      this.#keptRows -= rows.size;
      this.#kept.delete(k);
    } else if (rows.delete(id)) {
      this.#keptRows--;
      if (rows.size === 0) this.#kept.delete(k);
    }
  }

  #drop(k: string): void {
    const entry = this.#partitions.get(k);
    if (!entry) return;
    if (!entry.loading) this.#entries -= entry.partition.size;
    this.#partitions.delete(k);
  }

  /** Drops the least recently searched loaded partitions until within the limits; `keep` (the one in use) stays. */
  #evictBeyondLimits(keep: string): void {
    for (const [k, entry] of this.#partitions) {
      if (this.#partitions.size <= this.limits.maxPartitions && this.#entries <= this.limits.maxEntries) return;
      if (k !== keep && !entry.loading) this.#drop(k);
    }
  }
}

/** One workspace's partitions of a SignBitIndex. */
export type WorkspaceSignBits = {
  partition(scopeKey: string, load: () => Promise<{ id: number; bits: Uint8Array }[]>): Promise<SignBitPartition>;
  add(scopeKey: string, id: number, bits: Uint8Array): void;
  remove(scopeKey: string, id: number): void;
  /** Forgets one partition (its rows changed): the next lookup loads it again. */
  drop(scopeKey: string): void;
  /** Forgets every partition of the workspace (purge): the next lookups load them again. */
  clear(): void;
  /**
   * Keeps a row beside an entry (bounded: KEPT_ROWS in all; the oldest row of the partition kept
   * into longest ago goes first, and a search reads from the database what it no longer finds),
   * forgotten when the entry is removed or its partition dropped or cleared. Only what never
   * changes while the entry lives belongs here.
   */
  keep(scopeKey: string, id: number, row: unknown): void;
  /** The rows kept beside these entries, undefined for those with none. */
  kept<T>(scopeKey: string, ids: number[]): (T | undefined)[];
};

/** Rows read per statement when a partition is loaded: 100,000 entries take ~0.2 s, so other requests run between pages. */
const LOAD_PAGE = 5000;

/**
 * A partition's rows for `partition(…, load)`, read page by page in id order (`page` returns
 * the rows with an id above `after`, at most `limit`), with a turn of the event loop between
 * pages; changes committed meanwhile reach the index as they happen.
 */
export async function readPaged(page: (after: number, limit: number) => Promise<Row[]>): Promise<Row[]> {
  const rows: Row[] = [];
  for (let after = 0; ; ) {
    const next = await page(after, LOAD_PAGE);
    for (const row of next) rows.push(row);
    if (next.length < LOAD_PAGE) return rows;
    after = next[next.length - 1]!.id;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const key = (workspaceId: string, scopeKey: string) => `${workspaceId}\0${scopeKey}`;

function apply(partition: SignBitPartition, change: Change): void {
  if ("add" in change) partition.add(change.add.id, change.add.bits);
  else partition.remove(change.remove);
}
