/**
 * Which chunks a search may return: the variants it searches (one per version: the latest
 * version of each document chain by default, canonical documents only) and the chunk filters,
 * as SQL that every ranking runs inside. Every statement binds $workspace_id (WorkspaceScope).
 */
import type { RawParams } from "../../db/connection";
import type { WorkspaceScope } from "../../tenancy/scope";
import type { SearchFilters } from "../model";
import { inTextList, jsonElementText, jsonIntegerBetween, jsonList, jsonMemberEquals, textListParam } from "./sql-dialect";

/** A variant being searched, and the document version it belongs to. */
export type SearchedVariant = { variantId: string; versionId: string; documentId: string };

/**
 * A subquery of chunk seqs (`select c.seq …`), its conditions on a chunk row aliased `c` alone
 * (`where`), and their parameters; the variants it reads, and whether a chunk condition narrows
 * them (else every chunk of those variants is a candidate).
 */
export type CandidateChunks = { sql: string; where: string; params: RawParams; variants: SearchedVariant[]; narrowed: boolean; excludeFlagged: boolean };

/**
 * One variant per version: its oldest completed one (the chunking the upload asked for, unless
 * that one failed). Then, unless a version is named, the newest version of each chain that has
 * such a variant — a new version still processing leaves the previous one searchable — of
 * canonical documents only: an exact duplicate holds copies of its canonical's chunks.
 */
export async function searchedVariants(scope: WorkspaceScope, filters: SearchFilters): Promise<SearchedVariant[]> {
  const params: RawParams = {};
  const conditions: string[] = [];
  if (filters.version_id !== undefined) {
    conditions.push("ver.id = $version_id");
    params.version_id = filters.version_id;
  } else conditions.push("d.is_canonical = 1");
  const outer: string[] = ["version_rank = 1"];
  if (filters.document_ids) {
    outer.push(`document_id in ${jsonList(scope.dialect, "document_ids")}`);
    params.document_ids = JSON.stringify(filters.document_ids);
  }
  if (filters.filename !== undefined) {
    outer.push(`lower(filename) like $filename_pattern escape '\\'`);
    params.filename_pattern = likePattern(filters.filename.toLowerCase());
  }
  const rows = await scope.all<{ variant_id: string; version_id: string; document_id: string }>(
    `with picked as (
       select v.id as variant_id, ver.id as version_id, d.id as document_id, d.filename as filename, ver.chain_id as chain_id, ver.version_number as version_number,
              row_number() over (partition by ver.id order by v.created_at, v.id) as variant_rank
         from document_variants v
         join document_versions ver on ver.id = v.version_id and ver.workspace_id = $workspace_id
         join documents d on d.id = ver.document_id and d.workspace_id = $workspace_id
        where v.workspace_id = $workspace_id and v.status = 'completed' and ${conditions.join(" and ")}
     ), searched as (
       select variant_id, version_id, document_id, filename,
              row_number() over (partition by chain_id order by version_number desc) as version_rank
         from picked where variant_rank = 1
     )
     select variant_id, version_id, document_id from searched where ${outer.join(" and ")}`,
    params,
  );
  return rows.map((row) => ({ variantId: row.variant_id, versionId: row.version_id, documentId: row.document_id }));
}

/** A filename glob (`*`, `?`) as a LIKE pattern; LIKE's own wildcards and the escape are escaped. */
export function likePattern(glob: string): string {
  return glob.replace(/[\\%_]/g, (c) => `\\${c}`).replaceAll("*", "%").replaceAll("?", "_");
}

/** The chunks of `variants` that pass the chunk filters. */
export function candidateChunks(scope: WorkspaceScope, variants: SearchedVariant[], filters: SearchFilters, includeFlagged = false): CandidateChunks {
  const { dialect } = scope;
  const params: RawParams = { variant_ids: textListParam(dialect, variants.map((variant) => variant.variantId)) };
  const conditions = ["c.workspace_id = $workspace_id", inTextList(dialect, "c.variant_id", "variant_ids")];
  // Chunks the firewall flagged as injected (metadata.injection) are left out unless asked for.
  // Not a narrowing: the in-memory vector search drops them when it re-scores (rankings.ts).
  if (!includeFlagged) conditions.push("c.injection_flagged = 0");
  const variantConditions = conditions.length;
  if (filters.chunk_types) {
    conditions.push(`c.chunk_type in ${jsonList(dialect, "chunk_types")}`);
    params.chunk_types = JSON.stringify(filters.chunk_types);
  }
  filters.section_prefix?.forEach((name, i) => {
    conditions.push(`${jsonElementText(dialect, "c.section_hierarchy", i)} = $section_${i}`);
    params[`section_${i}`] = name;
  });
  if (filters.pages) {
    conditions.push(jsonIntegerBetween(dialect, "c.page_range", "page_from", "page_to"));
    params.page_from = filters.pages.from ?? 1;
    params.page_to = filters.pages.to ?? 2_147_483_647;
  }
  Object.entries(filters.metadata ?? {}).forEach(([key, value], i) => {
    conditions.push(jsonMemberEquals(dialect, "c.metadata", key, `metadata_${i}`));
    params[`metadata_${i}`] = JSON.stringify(value);
  });
  const where = conditions.join(" and ");
  return { sql: `select c.seq from document_chunks c where ${where}`, where, params, variants, narrowed: conditions.length > variantConditions, excludeFlagged: !includeFlagged };
}

/** The candidate seqs themselves (SQLite's vector search takes them as a list). */
export async function candidateSeqs(scope: WorkspaceScope, candidates: CandidateChunks): Promise<number[]> {
  const rows = await scope.all<{ seq: number }>(candidates.sql, candidates.params);
  return rows.map((row) => row.seq);
}
