CREATE TABLE `usage_counters` (
	`workspace_id` text NOT NULL,
	`subject` text NOT NULL,
	`period` text NOT NULL,
	`starts_at` integer NOT NULL,
	`requests` integer DEFAULT 0 NOT NULL,
	`tokens` real DEFAULT 0 NOT NULL,
	`cost_usd` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`workspace_id`, `subject`, `period`, `starts_at`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `api_keys` ADD `limits` text;--> statement-breakpoint
ALTER TABLE `workspaces` ADD `limits` text;--> statement-breakpoint
ALTER TABLE `evidence` ADD `cached_tokens` integer;--> statement-breakpoint
ALTER TABLE `evidence` ADD `reasoning_tokens` integer;--> statement-breakpoint
ALTER TABLE `evidence` ADD `usage_estimated` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `evidence` ADD `cost_usd` real;--> statement-breakpoint
ALTER TABLE `evidence` ADD `saved_cost_usd` real;--> statement-breakpoint
ALTER TABLE `evidence` ADD `limit_warning` text;