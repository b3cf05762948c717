-- Chunk vectors move out of the vec0 table into a plain one, searched in the server's memory
-- (src/documents/search/vector-index.ts over src/db/sign-bit-index.ts): sqlite-vec's KNN is a
-- brute-force scan of the workspace's vectors (0.7 s at 100,000 chunks, filtered or not) and its
-- point reads are slow (150 ms for 1,000 vectors), so neither the scan nor an exact re-scoring of a
-- prefilter's picks could use it. Each row keeps its float vector (exact re-scoring, reuse by a
-- new version) and its sign bits (the same bits as vec_quantize_binary: bit i set when component
-- i > 0, least significant bit first), read when a workspace's partition is loaded. A chunk's
-- vector now goes with it by foreign key, as on PostgreSQL. Vectors of chunks no longer stored
-- (vec0 had no foreign key) are not copied. Hand-written, like the vec0 table it replaces.
CREATE TABLE chunk_vectors (
	chunk_seq integer PRIMARY KEY NOT NULL REFERENCES document_chunks(seq) ON DELETE cascade,
	workspace_id text NOT NULL,
	embedding blob NOT NULL,
	sign_bits blob NOT NULL
);--> statement-breakpoint
INSERT INTO chunk_vectors (chunk_seq, workspace_id, embedding, sign_bits)
	SELECT e.chunk_seq, e.workspace_id, e.embedding, vec_quantize_binary(e.embedding)
	FROM chunk_embeddings e JOIN document_chunks c ON c.seq = e.chunk_seq;--> statement-breakpoint
DROP TABLE chunk_embeddings;--> statement-breakpoint
ALTER TABLE chunk_vectors RENAME TO chunk_embeddings;--> statement-breakpoint
CREATE INDEX chunk_embeddings_workspace_idx ON chunk_embeddings (workspace_id);
