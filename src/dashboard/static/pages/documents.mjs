// Documents: list and upload (with progress), and a document page with its versions, variants,
// duplicates, the dedup summary of a variant and a paged chunk browser.

import { api, get, upload } from "../api.mjs";
import { barChart } from "../charts.mjs";
import { badge, busy, confirmAction, dataTable, errorNotice, failure, field, keyValues, pageHeading, pager, select, toast } from "../components.mjs";
import { append, h } from "../dom.mjs";
import { bytes, label, percent, plain, time } from "../format.mjs";

const LIST_PATH = "/api/documents";
const LIST_PAGE = 25;
/** The list endpoint's maximum page: enough to find a document's versions and upload parents. */
const ALL = 1000;
const CHUNK_PAGE_SIZES = ["10", "25", "50", "100"];
const POLL_MS = 1000;

const documentHref = (id) => `#/documents/${encodeURIComponent(id)}`;
const processingTone = (status) => ({ completed: "ok", failed: "bad", pending: "neutral", processing: "caution" })[status] ?? "neutral";
const inProgress = (status) => status === "pending" || status === "processing";

function uploadForm(documents, navigate) {
  const file = h("input", { type: "file", name: "file", required: true });
  const parent = select("parent_document_id", [["", "— none (a new document) —"], ...documents.map((d) => [d.id, `${d.filename} (v${d.version_number})`])]);
  const strategy = select("chunking_strategy", [["", "default"], ["recursive", "recursive"], ["semantic", "semantic"]]);
  const chunkSize = h("input", { type: "number", name: "chunk_size", min: "16", max: "8192", inputmode: "numeric" });
  const progress = h("progress", { max: "100", value: "0", "aria-label": "Upload progress" });
  const progressText = h("span", { class: "muted", "aria-live": "polite" });
  const progressRow = h("div", { class: "progress-row", hidden: true }, progress, progressText);
  const submit = h("button", { type: "submit", class: "button primary" }, "Upload");
  const status = h("div", { class: "form-status" });
  const form = h(
    "form",
    { class: "upload-form" },
    field("File", file, "PDF, DOCX, HTML, Markdown, text or source code."),
    field("New version of", parent, "Pick the earlier document to deduplicate chunks against it."),
    field("Chunking strategy", strategy),
    field("Chunk size (tokens, optional)", chunkSize),
    h("div", { class: "filter-actions" }, submit),
    progressRow,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!file.files?.length) {
      status.replaceChildren(errorNotice("Choose a file to upload."));
      return;
    }
    const body = new FormData();
    body.append("file", file.files[0]);
    for (const control of [parent, strategy, chunkSize]) if (control.value) body.append(control.name, control.value);
    progressRow.hidden = false;
    progress.value = 0;
    progressText.textContent = "Uploading…";
    const result = await busy(submit, status, () =>
      upload(LIST_PATH, body, (sent, total) => {
        if (total) progress.value = Math.round((sent / total) * 100);
        progressText.textContent = total && sent < total ? `Uploading… ${progress.value}%` : "Processing…";
      }),
    );
    if (!result) {
      progressRow.hidden = true;
      return;
    }
    progress.value = 100;
    progressText.textContent = result.is_duplicate ? "Duplicate: processing skipped, chunks reused." : `Uploaded: ${result.status}.`;
    toast(result.is_duplicate ? "Duplicate of an existing document: chunks reused" : "Document uploaded");
    navigate(documentHref(result.document_id));
  });
  return form;
}

const documentColumns = [
  { label: "File", cell: (d) => h("a", { href: documentHref(d.id) }, d.filename) },
  { label: "Version", cell: (d) => `v${d.version_number}`, numeric: true },
  { label: "Format", cell: (d) => d.format ?? "–" },
  { label: "Size", cell: (d) => bytes(d.file_size_bytes), numeric: true },
  { label: "Pages", cell: (d) => d.page_count ?? "–", numeric: true },
  { label: "Status", cell: (d) => badge(d.status, processingTone(d.status)) },
  { label: "Chunks", cell: (d) => d.variants?.[0]?.chunks_count ?? "–", numeric: true },
  { label: "Copy", cell: (d) => (d.is_canonical ? badge("original", "neutral") : h("a", { href: documentHref(d.canonical_document_id) }, badge("duplicate", "caution"))) },
  { label: "Uploaded", cell: (d) => time(d.created_at) },
];

export async function documentsPage({ view, query, setQuery, navigate }) {
  const offset = Number(query.get("offset") ?? 0) || 0;
  append(view, pageHeading("Documents"), h("p", { class: "muted" }, "Upload files to chunk them; new versions are deduplicated against their parent, identical files reuse the original's chunks."));
  let page;
  let all;
  try {
    [page, all] = await Promise.all([get(LIST_PATH, { limit: LIST_PAGE, offset }), get(LIST_PATH, { limit: ALL })]);
  } catch (error) {
    append(view, failure(error, "The document API", LIST_PATH));
    return;
  }
  append(view,
    h("section", { class: "card", "aria-labelledby": "upload-title" }, h("h2", { id: "upload-title" }, "Upload"), uploadForm(all.documents, navigate)),
    h(
      "section",
      { "aria-labelledby": "documents-title" },
      h("h2", { id: "documents-title" }, "All documents"),
      dataTable({ caption: "Documents", columns: documentColumns, rows: page.documents, empty: "No documents yet." }),
      pager({ offset, limit: LIST_PAGE, total: page.total, shown: page.documents.length, label: "Document pages", onChange: (next) => setQuery({ offset: next }) }),
    ),
  );
}

function versionsSection(document, all) {
  const chain = all.filter((d) => d.latest_version_id === document.latest_version_id).sort((a, b) => a.version_number - b.version_number);
  return h(
    "section",
    { "aria-labelledby": "versions-title" },
    h("h2", { id: "versions-title" }, "Versions"),
    dataTable({
      caption: "Versions of this document",
      empty: "No versions found.",
      rows: chain,
      columns: [
        { label: "Version", cell: (d) => (d.id === document.id ? h("strong", {}, `v${d.version_number} (this one)`) : h("a", { href: documentHref(d.id) }, `v${d.version_number}`)) },
        { label: "File", cell: (d) => d.filename },
        { label: "Uploaded", cell: (d) => time(d.created_at) },
        { label: "Status", cell: (d) => badge(d.status, processingTone(d.status)) },
        { label: "Content hash", cell: (d) => h("code", { title: d.content_hash }, `${d.content_hash.slice(0, 12)}…`) },
      ],
    }),
  );
}

function variantsSection(document, selectedId, setVariant) {
  return h(
    "section",
    { "aria-labelledby": "variants-title" },
    h("h2", { id: "variants-title" }, "Variants"),
    h("p", { class: "muted" }, "A variant is one chunking configuration of this version."),
    dataTable({
      caption: "Processing variants",
      empty: "No variants.",
      rows: document.variants,
      columns: [
        { label: "Strategy", cell: (v) => v.chunking_strategy },
        { label: "Size / overlap", cell: (v) => `${v.chunk_size} / ${v.chunk_overlap}`, numeric: true },
        { label: "Status", cell: (v) => [badge(v.status, processingTone(v.status)), v.error ? h("span", { class: "muted" }, ` ${v.error}`) : null] },
        { label: "Chunks", cell: (v) => v.chunks_count ?? "–", numeric: true },
        { label: "Embeddings computed / reused", cell: (v) => `${v.embeddings_computed ?? 0} / ${v.embeddings_reused ?? 0}`, numeric: true },
        {
          label: "Browse",
          cell: (v) => {
            if (v.id === selectedId) return h("strong", {}, "shown below");
            const button = h("button", { type: "button", class: "button small", disabled: v.status !== "completed", "aria-label": `Browse chunks of the ${v.chunking_strategy} ${v.chunk_size} variant` }, "Browse");
            button.addEventListener("click", () => setVariant(v.id));
            return button;
          },
        },
      ],
    }),
  );
}

function newVariantForm(document, showVariant) {
  const strategy = select("chunking_strategy", [["recursive", "recursive"], ["semantic", "semantic"]]);
  const chunkSize = h("input", { type: "number", name: "chunk_size", min: "16", max: "8192", inputmode: "numeric" });
  const submit = h("button", { type: "submit", class: "button" }, "Process variant");
  const status = h("div", { class: "form-status" });
  const form = h("form", { class: "inline-form" }, field("Strategy", strategy), field("Chunk size (optional)", chunkSize), submit, status);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { chunking_strategy: strategy.value };
    if (chunkSize.value) body.chunk_size = Number(chunkSize.value);
    const variant = await busy(submit, status, () => api("POST", `${LIST_PATH}/${encodeURIComponent(document.id)}/variants`, body));
    if (variant) showVariant(variant.id);
  });
  return h("section", { class: "card", "aria-labelledby": "new-variant-title" }, h("h3", { id: "new-variant-title" }, "Process with another chunking configuration"), form);
}

function duplicatesSection(duplicates) {
  return h(
    "section",
    { "aria-labelledby": "duplicates-title" },
    h("h2", { id: "duplicates-title" }, "Duplicates"),
    duplicates.count <= 1
      ? h("p", { class: "empty" }, "No other upload has the same content.")
      : dataTable({
          caption: "Documents with identical content",
          empty: "",
          rows: duplicates.duplicates,
          columns: [
            { label: "File", cell: (d) => (d.id === duplicates.document_id ? h("strong", {}, `${d.filename} (this one)`) : h("a", { href: documentHref(d.id) }, d.filename)) },
            { label: "Role", cell: (d) => (d.is_canonical ? badge("canonical", "ok") : badge("duplicate", "caution")) },
            { label: "Uploaded", cell: (d) => time(d.created_at) },
          ],
        }),
  );
}

function summarySection(summary) {
  const breakdown = Object.entries(summary.chunk_breakdown ?? {});
  const recommendations = Object.entries(summary.embedding_recommendations ?? {});
  const tone = { exact: "ok", high_reuse: "ok", partial_reuse: "caution", mixed_content: "caution", fuzzy: "caution", new: "neutral", reuse: "ok", consider_reuse: "caution", regenerate: "neutral" };
  return h(
    "section",
    { "aria-labelledby": "summary-title" },
    h("h2", { id: "summary-title" }, "Deduplication summary"),
    summary.has_parent ? null : h("p", { class: "muted" }, "This is a first version: there is no parent to deduplicate against, so every chunk is new."),
    keyValues([
      ["Chunks", plain(summary.total_chunks)],
      ["Sentences", `${summary.total_sentences} (${summary.reused_sentences} reused, ${summary.new_sentences} new)`],
      ["Sentence reuse", percent(summary.sentence_reuse_ratio)],
      ["Embeddings computed / reused", `${summary.embeddings_computed ?? "–"} / ${summary.embeddings_reused ?? "–"}`],
    ]),
    h(
      "div",
      { class: "chart-pair" },
      breakdown.length ? barChart(breakdown.map(([name, count]) => ({ label: label(name), value: count, tone: tone[name] })), { caption: "Chunk strategy breakdown: chunks per dedup strategy." }) : null,
      recommendations.length ? barChart(recommendations.map(([name, count]) => ({ label: label(name), value: count, tone: tone[name] })), { caption: "Embedding recommendation per chunk." }) : null,
    ),
  );
}

function chunkCard(chunk) {
  const pages = chunk.page_range?.length ? `pages ${chunk.page_range.join("–")}` : chunk.page_number ? `page ${chunk.page_number}` : null;
  const facts = [chunk.chunk_type, `${chunk.tokens} tokens`, pages, chunk.section_number ? `§ ${chunk.section_number}` : null, chunk.quality_score !== null ? `quality ${chunk.quality_score.toFixed(2)}` : null].filter(Boolean);
  return h(
    "article",
    { class: "chunk", "aria-label": `Chunk ${chunk.chunk_index}` },
    h(
      "header",
      {},
      h("span", { class: "chunk-index" }, `#${chunk.chunk_index}`),
      " ",
      facts.join(" · "),
      " ",
      badge(chunk.dedup_strategy, chunk.is_reused ? "ok" : "neutral"),
      " ",
      badge(chunk.embedding_recommendation, "neutral"),
    ),
    chunk.section_hierarchy?.length ? h("p", { class: "muted small" }, chunk.section_hierarchy.join(" › ")) : null,
    chunk.synthetic_context ? h("p", { class: "muted small" }, `Context: ${chunk.synthetic_context}`) : null,
    h("pre", { class: "chunk-text" }, chunk.text),
  );
}

async function chunkBrowser(variantId, query, setQuery) {
  const limit = CHUNK_PAGE_SIZES.includes(query.get("chunk_limit")) ? Number(query.get("chunk_limit")) : 10;
  const offset = Number(query.get("chunk_offset") ?? 0) || 0;
  const section = h("section", { "aria-labelledby": "chunks-title" }, h("h2", { id: "chunks-title" }, "Chunks"));
  const sizeSelect = select("chunk_limit", CHUNK_PAGE_SIZES.map((size) => [size, size]), String(limit));
  sizeSelect.addEventListener("change", () => setQuery({ variant: variantId, chunk_limit: sizeSelect.value, chunk_offset: 0 }));
  try {
    const page = await get(`${LIST_PATH}/variants/${encodeURIComponent(variantId)}/chunks`, { limit, offset });
    const paging = () =>
      pager({ offset, limit, total: page.total, shown: page.chunks.length, label: "Chunk pages", onChange: (next) => setQuery({ variant: variantId, chunk_limit: limit, chunk_offset: next }) });
    section.append(h("div", { class: "inline" }, field("Chunks per page", sizeSelect), paging()), h("div", { class: "chunks" }, page.chunks.map(chunkCard)), paging());
  } catch (error) {
    section.append(errorNotice(error));
  }
  return section;
}

export async function documentPage({ view, params, query, setQuery, navigate, refresh }) {
  const [documentId] = params;
  append(view, h("p", { class: "breadcrumb" }, h("a", { href: "#/documents" }, "← Documents")));
  let document, duplicates, all;
  try {
    [document, duplicates, all] = await Promise.all([
      get(`${LIST_PATH}/${encodeURIComponent(documentId)}`),
      get(`${LIST_PATH}/${encodeURIComponent(documentId)}/duplicates`),
      get(LIST_PATH, { limit: ALL }),
    ]);
  } catch (error) {
    append(view, pageHeading("Document"), failure(error, "The document API", LIST_PATH));
    return;
  }

  const selected = document.variants.find((v) => v.id === query.get("variant")) ?? document.variants.find((v) => v.status === "completed");
  const setVariant = (variant) => setQuery({ variant });
  const remove = h("button", { type: "button", class: "button danger" }, "Delete document");
  const removeStatus = h("div", { class: "form-status" });
  remove.addEventListener("click", async () => {
    const confirmed = await confirmAction({
      title: `Delete "${document.filename}"?`,
      message: "The document, its variants and chunks are deleted. If it is the canonical copy, its oldest duplicate becomes canonical.",
      confirmLabel: "Delete",
    });
    if (!confirmed) return;
    const done = await busy(remove, removeStatus, () => api("DELETE", `${LIST_PATH}/${encodeURIComponent(document.id)}`));
    if (!done) return;
    toast(`"${document.filename}" deleted`);
    navigate("#/documents");
  });

  append(view,
    pageHeading(document.filename),
    keyValues([
      ["Document ID", h("code", {}, document.id)],
      ["Version", `v${document.version_number}`],
      ["Status", badge(document.status, processingTone(document.status))],
      ["Format", `${document.format ?? "–"} (${document.mime_type ?? "unknown type"})`],
      ["Size", bytes(document.file_size_bytes)],
      ["Pages", plain(document.page_count)],
      ["Content SHA-256", h("code", { class: "wrap" }, document.content_hash)],
      ["Uploaded", time(document.created_at)],
      ["Copy", document.is_canonical ? "original (canonical)" : ["duplicate of ", h("a", { href: documentHref(document.canonical_document_id) }, "the canonical document")]],
    ]),
    h("div", { class: "actions" }, remove),
    removeStatus,
  );
  if (document.variants.some((v) => inProgress(v.status))) {
    append(view, h("p", { class: "notice", role: "status" }, "Processing… this page updates by itself."));
    setTimeout(() => view.isConnected && refresh(), POLL_MS);
  }
  append(view, versionsSection(document, all.documents), variantsSection(document, selected?.id, setVariant), newVariantForm(document, setVariant), duplicatesSection(duplicates));
  if (!selected) return;
  const [summary, chunks] = await Promise.all([
    get(`${LIST_PATH}/variants/${encodeURIComponent(selected.id)}/dedup-summary`).then(summarySection, errorNotice),
    chunkBrowser(selected.id, query, setQuery),
  ]);
  if (view.isConnected) append(view, summary, chunks);
}
