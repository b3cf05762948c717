/**
 * Runs tasks one after another. Every parse (uploads, and jobs parsing stored bytes) goes through
 * the server's one instance (DocumentJobs.parsing): a parser's peak memory (mammoth holds a DOCX's
 * XML as a tree, tens of times its size) is then paid once per server, not once per concurrent parse.
 */
export class OneAtATime {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
