-- Search over chunks (POST /api/documents/search); the SQLite twin is migration 0020 (FTS5).
-- Keyword side: a stored tsvector of each chunk's text and its GIN index. The 'english'
-- configuration stems words; the search turns each identifier (E1234-X, parse_chunk_metadata)
-- into a phrase of its parts.
ALTER TABLE document_chunks ADD COLUMN search_text tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED;
--> statement-breakpoint
CREATE INDEX document_chunks_search_idx ON document_chunks USING gin (search_text);
--> statement-breakpoint
-- Vector side (no pgvector): the sign of each of the 384 float32 components (little-endian, so the
-- sign is the top bit of every fourth byte) as a bit(384). A search ranks a workspace's chunks by
-- Hamming distance to the query's sign bits, then re-scores the nearest thousand with exact
-- cosine similarity. The search spells the query's bits the same way (signBitString in
-- src/documents/search/rankings.ts).
CREATE FUNCTION chunk_sign_bits(vector bytea) RETURNS bit(384) LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT string_agg(CASE WHEN get_byte(vector, 4 * i + 3) < 128 THEN '1' ELSE '0' END, '' ORDER BY i)::bit(384)
	FROM generate_series(0, 383) AS i
$$;
--> statement-breakpoint
ALTER TABLE chunk_embeddings ADD COLUMN sign_bits bit(384) GENERATED ALWAYS AS (chunk_sign_bits(embedding)) STORED;
--> statement-breakpoint
CREATE INDEX chunk_embeddings_workspace_idx ON chunk_embeddings (workspace_id);
