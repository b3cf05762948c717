-- Vector search over a workspace's chunks (no filter) read every chunk_embeddings row of the
-- workspace from the heap, where the 1.6 KB vector sits beside the 48-byte sign bits (~160 MB at
-- 100,000 chunks), and every candidate document_chunks row (text, tsvector, metadata) to check its
-- variant and injection flag. Both now come from an index alone (docs/search.md, *PostgreSQL
-- vector search at 100,000 chunks*). The first replaces chunk_embeddings_workspace_idx: same
-- leading column, so deletes by workspace still use it.
CREATE INDEX chunk_embeddings_workspace_bits_idx ON chunk_embeddings (workspace_id) INCLUDE (chunk_seq, sign_bits);
--> statement-breakpoint
DROP INDEX chunk_embeddings_workspace_idx;
--> statement-breakpoint
CREATE INDEX document_chunks_candidates_idx ON document_chunks (workspace_id, variant_id) INCLUDE (seq, injection_flagged);
