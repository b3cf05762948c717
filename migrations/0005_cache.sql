CREATE TABLE `cache_counters` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`exact_hits` integer DEFAULT 0 NOT NULL,
	`semantic_hits` integer DEFAULT 0 NOT NULL,
	`misses` integer DEFAULT 0 NOT NULL,
	`saved_upstream_ms` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `cache_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`workspace_id` text NOT NULL,
	`key` text NOT NULL,
	`scope_key` text NOT NULL,
	`model` text NOT NULL,
	`prompt` text,
	`embedding` blob,
	`completion` text NOT NULL,
	`bytes` integer NOT NULL,
	`upstream_ms` integer NOT NULL,
	`hits` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cache_entries_workspace_key_unique` ON `cache_entries` (`workspace_id`,`key`);--> statement-breakpoint
CREATE INDEX `cache_entries_workspace_used_idx` ON `cache_entries` (`workspace_id`,`last_used_at`);--> statement-breakpoint
CREATE INDEX `cache_entries_workspace_expiry_idx` ON `cache_entries` (`workspace_id`,`expires_at`);