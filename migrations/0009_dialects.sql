ALTER TABLE `workspaces` ADD `anthropic_upstream_url` text;--> statement-breakpoint
ALTER TABLE `evidence` ADD `api` text DEFAULT 'POST /v1/chat/completions' NOT NULL;