-- The semantic cache's Hamming-distance search moves from the vec0 table cache_vectors into the
-- server's memory (src/db/sign-bit-index.ts): sqlite-vec 0.1.9 picks its k nearest per chunk in
-- O(chunk x k), ~60 ns per entry at k = 24; a scan in memory costs ~11 ns. The sign bits now sit
-- beside the float vector in cache_entries (copied from cache_vectors: the same bytes), and a
-- scope's rows are found through the new index when its partition is loaded. Hand-written, like
-- the vec0 tables it replaces: PostgreSQL keeps its cache_vectors table and searches in SQL.
ALTER TABLE cache_entries ADD sign_bits blob;--> statement-breakpoint
CREATE INDEX cache_entries_workspace_scope_idx ON cache_entries (workspace_id, scope_key);--> statement-breakpoint
UPDATE cache_entries SET sign_bits = (SELECT v.embedding FROM cache_vectors v WHERE v.entry_id = cache_entries.id) WHERE embedding IS NOT NULL;--> statement-breakpoint
DROP TRIGGER cache_entries_delete_vector;--> statement-breakpoint
DROP TABLE cache_vectors;
