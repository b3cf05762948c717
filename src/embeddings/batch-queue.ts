/**
 * Serialises inference (one ORT WASM session runs one call at a time) and coalesces whatever
 * piles up meanwhile into batches: concurrent embed() calls share one model run instead of
 * queueing behind each other. Only inputs of the same group (padded length) share a batch.
 */
type Job<In, Out> = { input: In; group: number; resolve: (output: Out) => void; reject: (error: unknown) => void };

export class BatchQueue<In, Out> {
  private pending: Job<In, Out>[] = [];
  private draining = false;

  constructor(
    private readonly runBatch: (inputs: In[]) => Promise<Out[]>,
    private readonly groupOf: (input: In) => number,
    private readonly maxBatch: number,
  ) {}

  submit(inputs: In[]): Promise<Out[]> {
    const results = inputs.map(
      (input) => new Promise<Out>((resolve, reject) => this.pending.push({ input, group: this.groupOf(input), resolve, reject })),
    );
    void this.drain();
    return Promise.all(results);
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      await Promise.resolve(); // let calls made in the same tick join the first batch
      while (this.pending.length > 0) {
        const batch = this.takeBatch();
        try {
          const outputs = await this.runBatch(batch.map((job) => job.input));
          batch.forEach((job, i) => job.resolve(outputs[i]));
        } catch (error) {
          for (const job of batch) job.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  /** The oldest job plus the next ones of its group, in arrival order. */
  private takeBatch(): Job<In, Out>[] {
    const group = this.pending[0].group;
    const batch: Job<In, Out>[] = [];
    const rest: Job<In, Out>[] = [];
    for (const job of this.pending) {
      if (job.group === group && batch.length < this.maxBatch) batch.push(job);
      else rest.push(job);
    }
    this.pending = rest;
    return batch;
  }
}
