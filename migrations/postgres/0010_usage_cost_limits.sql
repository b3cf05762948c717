CREATE TABLE "usage_counters" (
	"workspace_id" text NOT NULL,
	"subject" text NOT NULL,
	"period" text NOT NULL,
	"starts_at" bigint NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"tokens" double precision DEFAULT 0 NOT NULL,
	"cost_usd" double precision DEFAULT 0 NOT NULL,
	CONSTRAINT "usage_counters_workspace_id_subject_period_starts_at_pk" PRIMARY KEY("workspace_id","subject","period","starts_at")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "limits" text;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "cached_tokens" integer;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "reasoning_tokens" integer;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "usage_estimated" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "cost_usd" double precision;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "saved_cost_usd" double precision;--> statement-breakpoint
ALTER TABLE "evidence" ADD COLUMN "limit_warning" text;--> statement-breakpoint
ALTER TABLE "workspaces" ADD COLUMN "limits" text;--> statement-breakpoint
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;