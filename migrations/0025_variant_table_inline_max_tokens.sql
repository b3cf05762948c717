DROP INDEX `document_variants_config_unique`;--> statement-breakpoint
ALTER TABLE `document_variants` ADD `table_inline_max_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `document_variants_config_unique` ON `document_variants` (`version_id`,`chunking_strategy`,`chunk_size`,`chunk_overlap`,`contextual_prefix`,`redact_findings`,`table_inline_max_tokens`);