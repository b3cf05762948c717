import { Counter, Gauge, type Registry } from "prom-client";

/** This server's document work at the moment of a scrape. */
export type DocumentWork = { queued: number; parked: number; running: number; uploadsInProgress: number; keptParseBytes: number };

export type AdmissionRefusal = "workspace_queue_full" | "server_queue_full" | "upload_slot_timeout";

/** The document job queue's depth and the uploads it turned away (src/documents/admission.ts). */
export class DocumentMetrics {
  readonly #refused: Counter<"reason">;
  readonly #chunksScanned: Counter<"reason">;

  constructor(registry: Registry, work: () => DocumentWork) {
    for (const [name, field, help] of [
      ["sieve_document_jobs_queued", "queued", "Document jobs waiting in this server's queue"],
      ["sieve_document_jobs_running", "running", "Document jobs running on this server (0 or 1: jobs run one at a time)"],
      ["sieve_document_jobs_parked", "parked", "Document jobs parked behind another instance's job (fleet mode)"],
      ["sieve_document_uploads_in_progress", "uploadsInProgress", "Uploads being read or parsed, or waiting for their turn"],
      ["sieve_document_kept_parse_bytes", "keptParseBytes", "Size of the pending uploads whose parse is kept in memory for their job (at most 32 MiB; the others are parsed again from the database)"],
    ] as const) {
      const gauge: Gauge = new Gauge({ name, help, registers: [registry], collect: () => gauge.set(work()[field]) });
    }
    this.#refused = new Counter({
      name: "sieve_document_uploads_refused_total",
      help: "Uploads and variant requests turned away by back-pressure (workspace_queue_full: 429; server_queue_full, upload_slot_timeout: 503)",
      labelNames: ["reason"],
      registers: [registry],
    });
    this.#chunksScanned = new Counter({
      name: "sieve_document_chunks_scanned_total",
      help: "Chunk texts scanned on the firewall's data channel for chunk flags (new: a variant's new chunks; rescan: a variant's chunks scanned again after its workspace changed its patterns)",
      labelNames: ["reason"],
      registers: [registry],
    });
  }

  /** Chunk texts scanned for chunk flags: of a new variant, or again after the workspace changed its patterns. */
  chunksScanned(reason: "new" | "rescan", chunks: number): void {
    this.#chunksScanned.inc({ reason }, chunks);
  }

  refused(reason: AdmissionRefusal): void {
    this.#refused.inc({ reason });
  }
}
