-- cache_counters.entries follows the rows of cache_entries, whatever adds or deletes them, so the
-- LRU bound is checked on every store without counting (as the SQLite triggers of 0008 do).
CREATE FUNCTION cache_entries_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO cache_counters (workspace_id, entries) VALUES (NEW.workspace_id, 1)
		ON CONFLICT (workspace_id) DO UPDATE SET entries = cache_counters.entries + 1;
		RETURN NEW;
	END IF;
	UPDATE cache_counters SET entries = entries - 1 WHERE workspace_id = OLD.workspace_id;
	RETURN OLD;
END $$;
--> statement-breakpoint
CREATE TRIGGER cache_entries_count_insert AFTER INSERT ON cache_entries FOR EACH ROW EXECUTE FUNCTION cache_entries_count();
--> statement-breakpoint
CREATE TRIGGER cache_entries_count_delete AFTER DELETE ON cache_entries FOR EACH ROW EXECUTE FUNCTION cache_entries_count();
