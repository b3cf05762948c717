CREATE TABLE `document_blobs` (
	`workspace_id` text NOT NULL,
	`content_hash` text NOT NULL,
	`bytes` blob NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `content_hash`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `document_chunks` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`variant_id` text NOT NULL,
	`chunk_index` integer NOT NULL,
	`text` text NOT NULL,
	`text_hash` text NOT NULL,
	`page_number` integer,
	`page_range` text NOT NULL,
	`section_hierarchy` text NOT NULL,
	`tokens` integer NOT NULL,
	`metadata` text NOT NULL,
	`chunk_type` text NOT NULL,
	`contains_table` integer NOT NULL,
	`table_metadata` text,
	`chunking_strategy` text NOT NULL,
	`section_number` text,
	`quality_score` real,
	`synthetic_context` text,
	`parent_chunk_id` text,
	`bounding_box` text,
	`dedup_strategy` text NOT NULL,
	`dedup_confidence` real NOT NULL,
	`is_reused` integer NOT NULL,
	`dedup_source_chunk_id` text,
	`total_sentences` integer NOT NULL,
	`reused_sentences_count` integer NOT NULL,
	`new_sentences_count` integer NOT NULL,
	`content_reuse_ratio` real NOT NULL,
	`embedding_recommendation` text NOT NULL,
	`recommendation_confidence` text NOT NULL,
	`dedup_metadata` text NOT NULL,
	`embedding_copied` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`variant_id`) REFERENCES `document_variants`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_chunks_id_unique` ON `document_chunks` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `document_chunks_variant_index_unique` ON `document_chunks` (`variant_id`,`chunk_index`);--> statement-breakpoint
CREATE INDEX `document_chunks_workspace_hash_idx` ON `document_chunks` (`workspace_id`,`text_hash`);--> statement-breakpoint
CREATE TABLE `document_usage` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`documents_uploaded` integer DEFAULT 0 NOT NULL,
	`duplicates_detected` integer DEFAULT 0 NOT NULL,
	`variants_processed` integer DEFAULT 0 NOT NULL,
	`pages_processed` integer DEFAULT 0 NOT NULL,
	`pages_saved` integer DEFAULT 0 NOT NULL,
	`chunks_created` integer DEFAULT 0 NOT NULL,
	`embeddings_computed` integer DEFAULT 0 NOT NULL,
	`embeddings_reused` integer DEFAULT 0 NOT NULL,
	`updated_at` integer DEFAULT (unixepoch() * 1000) NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `document_variants` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`version_id` text NOT NULL,
	`chunking_strategy` text NOT NULL,
	`chunk_size` integer NOT NULL,
	`chunk_overlap` integer NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`parent_version_id` text,
	`chunks_count` integer,
	`pages_processed` integer DEFAULT 0 NOT NULL,
	`pages_saved` integer DEFAULT 0 NOT NULL,
	`embeddings_computed` integer DEFAULT 0 NOT NULL,
	`embeddings_reused` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`version_id`) REFERENCES `document_versions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_variants_config_unique` ON `document_variants` (`version_id`,`chunking_strategy`,`chunk_size`,`chunk_overlap`);--> statement-breakpoint
CREATE INDEX `document_variants_status_idx` ON `document_variants` (`status`);--> statement-breakpoint
CREATE TABLE `document_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`document_id` text NOT NULL,
	`chain_id` text NOT NULL,
	`version_number` integer NOT NULL,
	`parent_version_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_version_id`) REFERENCES `document_versions`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_versions_document_unique` ON `document_versions` (`document_id`);--> statement-breakpoint
CREATE INDEX `document_versions_chain_idx` ON `document_versions` (`workspace_id`,`chain_id`);--> statement-breakpoint
CREATE TABLE `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`filename` text NOT NULL,
	`content_hash` text NOT NULL,
	`file_size_bytes` integer NOT NULL,
	`mime_type` text NOT NULL,
	`format` text NOT NULL,
	`page_count` integer NOT NULL,
	`is_canonical` integer NOT NULL,
	`canonical_document_id` text,
	`parent_document_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`canonical_document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`parent_document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `documents_workspace_hash_idx` ON `documents` (`workspace_id`,`content_hash`);--> statement-breakpoint
CREATE INDEX `documents_workspace_time_idx` ON `documents` (`workspace_id`,`created_at`);