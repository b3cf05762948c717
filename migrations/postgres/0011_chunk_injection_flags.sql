ALTER TABLE "document_chunks" ADD COLUMN "injection_flagged" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "document_variants" ADD COLUMN "flagged_chunks" integer;