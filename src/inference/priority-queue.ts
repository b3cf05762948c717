/** Request-path work before bulk work; first in, first out within each. */
export type Priority = "request" | "bulk";

export class PriorityQueue<T> {
  readonly #lanes: Record<Priority, Fifo<T>> = { request: new Fifo(), bulk: new Fifo() };

  push(item: T, priority: Priority): void {
    this.#lanes[priority].push(item);
  }

  shift(): T | undefined {
    return this.#lanes.request.shift() ?? this.#lanes.bulk.shift();
  }

  /** The next request-path item, leaving bulk work queued. */
  shiftRequest(): T | undefined {
    return this.#lanes.request.shift();
  }

  /** The next request-path item, left in the queue. */
  peekRequest(): T | undefined {
    return this.#lanes.request.peek();
  }

  /** Removes and returns everything still queued. */
  drain(): T[] {
    const items: T[] = [];
    for (let item = this.shift(); item !== undefined; item = this.shift()) items.push(item);
    return items;
  }

  get size(): number {
    return this.#lanes.request.size + this.#lanes.bulk.size;
  }

  sizeOf(priority: Priority): number {
    return this.#lanes[priority].size;
  }
}

/** An array queue with a moving head: a document's thousands of chunks dequeue in O(1) each. */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  peek(): T | undefined {
    return this.#items[this.#head];
  }

  get size(): number {
    return this.#items.length - this.#head;
  }
}
