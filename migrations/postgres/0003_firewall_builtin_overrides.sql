CREATE TABLE "firewall_builtin_overrides" (
	"workspace_id" text NOT NULL,
	"pattern_id" text NOT NULL,
	"action" text,
	"threshold" double precision,
	"updated_at" bigint,
	CONSTRAINT "firewall_builtin_overrides_workspace_id_pattern_id_pk" PRIMARY KEY("workspace_id","pattern_id")
);
--> statement-breakpoint
ALTER TABLE "firewall_builtin_overrides" ADD CONSTRAINT "firewall_builtin_overrides_workspace_id_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."workspaces"("id") ON DELETE cascade ON UPDATE no action;