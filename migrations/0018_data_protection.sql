ALTER TABLE `workspaces` ADD `data_protection` text;--> statement-breakpoint
ALTER TABLE `evidence` ADD `data_protection` text;