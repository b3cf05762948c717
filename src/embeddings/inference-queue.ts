/**
 * Serialises inference: one ORT WASM session runs one call at a time, and each call yields to
 * the event loop when it settles, so a long queue of document chunks lets proxy requests in
 * between two texts instead of after all of them.
 */
export class InferenceQueue<In, Out> {
  #tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly run: (input: In) => Promise<Out>) {}

  submit(input: In): Promise<Out> {
    const result = this.#tail.then(() => this.run(input));
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
