-- Response-cache vectors: the sign bits of the last user message's 384-dimensional
-- all-MiniLM-L6-v2 embedding, one row per cache_entries row (entry_id = cache_entries.id).
-- Partitioned by workspace and scope key (model, parameters, conversation prefix), so a semantic
-- lookup only ever scans the entries it may answer from. Binary vectors keep a partition small
-- (chunk_size 128 x 48 bytes: most conversation scopes hold one entry) and the Hamming scan fast;
-- the few nearest are re-scored with the exact float vectors in cache_entries.embedding.
-- Hand-written: vec0 rejects the backtick-quoted column names drizzle-kit emits.
CREATE VIRTUAL TABLE cache_vectors USING vec0(
	entry_id integer primary key,
	workspace_id text partition key,
	scope_key text partition key,
	embedding bit[384],
	chunk_size=128
);
--> statement-breakpoint
-- sqlite-vec 0.1.9 finds a partition's chunks by scanning the whole cache_vectors_chunks shadow
-- table; with this index that is a seek, so a lookup's cost does not grow with other scopes' entries.
CREATE INDEX cache_vectors_chunks_partition ON cache_vectors_chunks (partition00, partition01);
--> statement-breakpoint
-- Whatever deletes an entry (eviction, expiry, purge, a deleted workspace's cascade) deletes its vector.
CREATE TRIGGER cache_entries_delete_vector AFTER DELETE ON cache_entries BEGIN
	DELETE FROM cache_vectors WHERE entry_id = old.id;
END;
