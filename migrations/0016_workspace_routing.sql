ALTER TABLE `workspaces` ADD `routing` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `routing_secrets` text;