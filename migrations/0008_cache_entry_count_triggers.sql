-- cache_counters.entries follows the rows of cache_entries, whatever adds or deletes them, so the
-- LRU bound is checked on every store without counting a workspace's entries.
CREATE TRIGGER cache_entries_count_insert AFTER INSERT ON cache_entries BEGIN
	INSERT INTO cache_counters (workspace_id, entries) VALUES (new.workspace_id, 1)
	ON CONFLICT (workspace_id) DO UPDATE SET entries = entries + 1;
END;
--> statement-breakpoint
CREATE TRIGGER cache_entries_count_delete AFTER DELETE ON cache_entries BEGIN
	UPDATE cache_counters SET entries = entries - 1 WHERE workspace_id = old.workspace_id;
END;
--> statement-breakpoint
-- Entries stored before this migration.
INSERT INTO cache_counters (workspace_id, entries)
	SELECT workspace_id, count(*) FROM cache_entries WHERE true GROUP BY workspace_id
	ON CONFLICT (workspace_id) DO UPDATE SET entries = excluded.entries;
