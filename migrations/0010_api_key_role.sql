ALTER TABLE `api_keys` ADD `role` text DEFAULT 'service' NOT NULL;--> statement-breakpoint
-- Keys made before roles existed could manage keys: they stay admin keys, so an upgrade locks nobody out.
UPDATE `api_keys` SET `role` = 'admin';
