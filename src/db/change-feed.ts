/**
 * Cross-instance invalidation on PostgreSQL: a change is announced with NOTIFY on one channel,
 * numbered by a sequence. Every instance LISTENs (Bun's client re-subscribes after a dropped
 * connection) and, as a fallback for a notification it missed (the listening connection was down,
 * a NOTIFY got lost), compares the sequence with the last number it saw every few seconds: a gap
 * means "something changed", and every in-memory copy is dropped.
 */
import type { SQL } from "bun";
import type { ChangeListener, ChangeTopic } from "./connection";

export const CHANGE_CHANNEL = "sieve_changes";
/** How often the fallback compares the change counter: a missed notification heals within this. */
export const CHANGE_CHECK_MS = 2_000;

const TOPICS: readonly ChangeTopic[] = ["keys", "workspace", "patterns"];

export class ChangeFeed {
  readonly #listeners: ChangeListener[] = [];
  #seen = 0;
  #timer: Timer | undefined;
  #subscription: SQL.ListenSubscription | undefined;

  constructor(private readonly pool: SQL) {}

  async start(): Promise<void> {
    this.#seen = await this.#counter();
    let first = true;
    this.#subscription = await this.pool.listen(
      CHANGE_CHANNEL,
      (payload) => this.#received(payload),
      () => {
        // A re-subscription after a dropped connection: notifications may have been missed meanwhile.
        if (!first) this.#emit(null, null);
        first = false;
      },
    );
    this.#timer = setInterval(() => void this.#check(), CHANGE_CHECK_MS);
    this.#timer.unref?.();
  }

  /** This instance drops its copies at once (its next request must see the change); the others on the notification. */
  async announce(client: SQL, topic: ChangeTopic, workspaceId: string): Promise<void> {
    this.#emit(topic, workspaceId);
    await client.unsafe(`SELECT pg_notify('${CHANGE_CHANNEL}', nextval('sieve_change_seq')::text || ' ' || $1 || ' ' || $2)`, [topic, workspaceId]);
  }

  onChange(listener: ChangeListener): void {
    this.#listeners.push(listener);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#subscription?.unlisten().catch(() => {});
  }

  #received(payload: string): void {
    const [seq, topic, workspaceId] = payload.split(" ");
    this.#seen = Math.max(this.#seen, Number(seq));
    this.#emit(TOPICS.includes(topic as ChangeTopic) ? (topic as ChangeTopic) : null, workspaceId || null);
  }

  async #check(): Promise<void> {
    try {
      const counter = await this.#counter();
      if (counter > this.#seen) {
        this.#seen = counter;
        this.#emit(null, null);
      }
    } catch {
      // Database unreachable: /readyz reports it; the next check catches up.
    }
  }

  async #counter(): Promise<number> {
    const [row] = await this.pool.unsafe("SELECT last_value, is_called FROM sieve_change_seq");
    return row.is_called ? Number(row.last_value) : 0;
  }

  #emit(topic: ChangeTopic | null, workspaceId: string | null): void {
    for (const listener of this.#listeners) listener(topic, workspaceId);
  }
}
