ALTER TABLE `document_variants` ADD `lease_owner` text;--> statement-breakpoint
ALTER TABLE `document_variants` ADD `lease_until` integer;