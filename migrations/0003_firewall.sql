CREATE TABLE `firewall_builtin_patterns` (
	`id` text PRIMARY KEY NOT NULL,
	`family` text NOT NULL,
	`side` text NOT NULL,
	`text` text NOT NULL,
	`action` text NOT NULL,
	`threshold` real NOT NULL,
	`library_version` integer NOT NULL,
	`vector_model` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `firewall_custom_patterns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`family` text NOT NULL,
	`side` text NOT NULL,
	`text` text NOT NULL,
	`action` text NOT NULL,
	`threshold` real NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`vector_model` text,
	`created_at` integer NOT NULL,
	`updated_at` integer,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `firewall_custom_patterns_workspace_idx` ON `firewall_custom_patterns` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `firewall_disabled_builtins` (
	`workspace_id` text NOT NULL,
	`pattern_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `pattern_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `firewall_disabled_families` (
	`workspace_id` text NOT NULL,
	`family` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `family`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
