ALTER TABLE "evidence" ADD COLUMN "data_protection" text;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "data_protection" text;