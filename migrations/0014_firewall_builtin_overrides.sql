CREATE TABLE `firewall_builtin_overrides` (
	`workspace_id` text NOT NULL,
	`pattern_id` text NOT NULL,
	`action` text,
	`threshold` real,
	`updated_at` integer,
	PRIMARY KEY(`workspace_id`, `pattern_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE cascade
);
