/**
 * The child side of EmbeddingProcess (`sieve embed-worker`): loads the embedder the server would
 * load and answers batches over the IPC channel until the parent disconnects.
 */
import type { Config } from "../config";
import type { Embedder } from "./embedder";

export type WorkerRequest = { type: "init"; config: Config } | { type: "embed"; id: number; texts: string[] };
export type WorkerReply =
  | { type: "ready" }
  | { type: "failed"; error: string }
  | { type: "vectors"; id: number; vectors: Float32Array[] }
  | { type: "error"; id: number; error: string };

export async function runEmbeddingWorker(): Promise<number> {
  if (!process.send) {
    process.stderr.write("sieve embed-worker: started without an IPC channel (it is started by the server, not by hand)\n");
    return 2;
  }
  const reply = (message: WorkerReply) => process.send!(message);
  let embedder: Promise<Embedder> | undefined;
  // The server's loader, imported late so a mistaken start does not load the whole app.
  const { loadEmbedder } = await import("../server");
  process.on("disconnect", () => process.exit(0));
  process.on("message", async (message: WorkerRequest) => {
    if (message.type === "init") {
      embedder = loadEmbedder(message.config);
      embedder.then(
        () => reply({ type: "ready" }),
        (error: Error) => reply({ type: "failed", error: error.message }),
      );
      return;
    }
    try {
      if (!embedder) throw new Error("embed before init");
      reply({ type: "vectors", id: message.id, vectors: await (await embedder).embedMany(message.texts) });
    } catch (error) {
      reply({ type: "error", id: message.id, error: (error as Error).message });
    }
  });
  await new Promise(() => {}); // runs until the parent disconnects
  return 0;
}
