-- Keyword search over chunk text (POST /api/documents/search): an FTS5 index whose content is
-- document_chunks itself (external content, rowid = seq), kept in step by triggers, so whatever
-- writes or deletes chunks (a job, a duplicate's copy, a document's or workspace's cascade)
-- changes the index in the same transaction. unicode61 splits identifiers such as E1234-X or
-- parse_chunk_metadata into their parts; the search quotes them as phrases, so the parts must
-- stand next to each other. porter folds plural and tense forms of English words.
CREATE VIRTUAL TABLE chunk_search USING fts5(
	text,
	content = 'document_chunks',
	content_rowid = 'seq',
	tokenize = 'porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER chunk_search_insert AFTER INSERT ON document_chunks BEGIN
	INSERT INTO chunk_search (rowid, text) VALUES (new.seq, new.text);
END;
--> statement-breakpoint
CREATE TRIGGER chunk_search_delete AFTER DELETE ON document_chunks BEGIN
	INSERT INTO chunk_search (chunk_search, rowid, text) VALUES ('delete', old.seq, old.text);
END;
--> statement-breakpoint
CREATE TRIGGER chunk_search_update AFTER UPDATE OF text ON document_chunks BEGIN
	INSERT INTO chunk_search (chunk_search, rowid, text) VALUES ('delete', old.seq, old.text);
	INSERT INTO chunk_search (rowid, text) VALUES (new.seq, new.text);
END;
--> statement-breakpoint
-- Chunks stored before this migration.
INSERT INTO chunk_search (chunk_search) VALUES ('rebuild');
