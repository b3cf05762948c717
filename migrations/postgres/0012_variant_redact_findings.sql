DROP INDEX "document_variants_config_unique";--> statement-breakpoint
ALTER TABLE "document_variants" ADD COLUMN "redact_findings" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "document_variants_config_unique" ON "document_variants" USING btree ("version_id","chunking_strategy","chunk_size","chunk_overlap","contextual_prefix","redact_findings");--> statement-breakpoint
-- Variants made before this column followed the workspace's redact_documents.
UPDATE "document_variants" SET "redact_findings" = 1 WHERE "workspace_id" IN (SELECT "id" FROM "workspaces" WHERE ("data_protection"::jsonb ->> 'redact_documents') = 'true');
