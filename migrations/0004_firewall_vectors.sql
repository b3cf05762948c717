-- Firewall pattern embeddings (all-MiniLM-L6-v2, 384 dimensions, L2-normalised). Hand-written:
-- vec0 rejects drizzle's backtick-quoted column names. Rows share ids with
-- firewall_builtin_patterns / firewall_custom_patterns.
CREATE VIRTUAL TABLE firewall_builtin_vectors USING vec0(
	pattern_id text primary key,
	embedding float[384] distance_metric=cosine
);
--> statement-breakpoint
CREATE VIRTUAL TABLE firewall_custom_vectors USING vec0(
	pattern_id text primary key,
	workspace_id text partition key,
	embedding float[384] distance_metric=cosine
);
