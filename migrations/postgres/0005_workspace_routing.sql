ALTER TABLE "workspaces" ADD COLUMN "routing" text;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "routing_secrets" text;