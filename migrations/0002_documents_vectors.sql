-- One 384-dimensional all-MiniLM-L6-v2 vector per document chunk; chunk_seq = document_chunks.seq.
-- Partitioned by workspace so KNN queries only ever scan one tenant's vectors.
-- Hand-written: vec0 rejects the backtick-quoted column names drizzle-kit emits.
CREATE VIRTUAL TABLE chunk_embeddings USING vec0(
  chunk_seq integer primary key,
  workspace_id text partition key,
  embedding float[384] distance_metric=cosine
);
