ALTER TABLE `document_chunks` ADD `injection_flagged` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `document_variants` ADD `flagged_chunks` integer;