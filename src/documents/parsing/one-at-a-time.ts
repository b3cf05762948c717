/**
 * Runs tasks one after another. The server's DocumentParser sends every parse through one (a
 * parser's peak memory is paid once per server, not once per concurrent parse), and the DOCX
 * thread its parses (each gets the whole worker, and its watchdog times only its own turn).
 */
export class OneAtATime {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
