DROP INDEX "document_variants_config_unique";--> statement-breakpoint
ALTER TABLE "document_variants" ADD COLUMN "contextual_prefix" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX "document_variants_config_unique" ON "document_variants" USING btree ("version_id","chunking_strategy","chunk_size","chunk_overlap","contextual_prefix");