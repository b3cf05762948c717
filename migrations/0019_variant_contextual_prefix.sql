DROP INDEX `document_variants_config_unique`;--> statement-breakpoint
ALTER TABLE `document_variants` ADD `contextual_prefix` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `document_variants_config_unique` ON `document_variants` (`version_id`,`chunking_strategy`,`chunk_size`,`chunk_overlap`,`contextual_prefix`);