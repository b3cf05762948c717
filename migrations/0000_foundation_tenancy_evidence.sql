CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`visible_prefix` text NOT NULL,
	`secret_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_secret_hash_unique` ON `api_keys` (`secret_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_workspace_idx` ON `api_keys` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`csrf_token` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_idx` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`log_bodies` integer DEFAULT true NOT NULL,
	`firewall_scan_system` integer DEFAULT false NOT NULL,
	`cache_enabled` integer DEFAULT true NOT NULL,
	`cache_semantic` integer DEFAULT true NOT NULL,
	`cache_threshold` real,
	`cache_ttl_seconds` integer DEFAULT 604800 NOT NULL,
	`cache_max_entries` integer DEFAULT 10000 NOT NULL,
	`upstream_url` text
);
--> statement-breakpoint
CREATE TABLE `evidence` (
	`request_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`key_id` text,
	`created_at` integer NOT NULL,
	`model` text,
	`stream` integer NOT NULL,
	`status` integer NOT NULL,
	`cache_status` text NOT NULL,
	`firewall_action` text NOT NULL,
	`firewall_matches` text NOT NULL,
	`overhead_ms` integer NOT NULL,
	`upstream_ms` integer NOT NULL,
	`prompt_tokens` integer,
	`completion_tokens` integer,
	`total_tokens` integer,
	`prompt_sha256` text NOT NULL,
	`request_body` text,
	`response_body` text,
	`error` text,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `evidence_workspace_time_idx` ON `evidence` (`workspace_id`,`created_at`);