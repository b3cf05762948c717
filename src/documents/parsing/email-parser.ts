/**
 * E-mail → blocks: the subject as the section heading, a header paragraph (From, To, Cc, Date) so
 * the sender and date are searchable, then the body: the HTML body through the HTML parser when
 * there is one, else the plain-text body. EML is read by postal-mime, Outlook MSG by msgreader.
 * The headers and the attachment list (name, type, size) become the document's `email` properties,
 * copied onto every chunk's metadata. Attachments are listed, not parsed: reading them as child
 * documents would need them stored and versioned as documents of their own.
 */
import msgReaderModule from "@kenjiuno/msgreader";
import PostalMime from "postal-mime";
import { CorruptFileError } from "./errors.ts";
import { parseHtml } from "./html-parser.ts";
import { parsePlainText } from "./text-parser.ts";
import type { Block, DocumentProperties, EmailProperties } from "./types.ts";

type Message = EmailProperties & { html: string | null; text: string | null };

export type ParsedEmail = { blocks: Block[]; properties: DocumentProperties };

/**
 * msgreader is CommonJS with `exports.default`: Bun's runtime hands over that default, its bundler
 * (the compiled binary's parser thread) the whole module object, whose `default` is the class.
 */
const MsgReader: typeof msgReaderModule = (msgReaderModule as unknown as { default?: typeof msgReaderModule }).default ?? msgReaderModule;

export async function parseEml(bytes: Uint8Array): Promise<ParsedEmail> {
  let email: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    email = await PostalMime.parse(bytes);
  } catch (error) {
    throw new CorruptFileError(`The e-mail cannot be read: ${(error as Error).message}`);
  }
  const address = (a: { name?: string; address?: string } | undefined) => (a ? formatAddress(a.name, a.address) : null);
  return emailBlocks({
    from: address(email.from),
    to: (email.to ?? []).map((a) => address(a)!),
    cc: (email.cc ?? []).map((a) => address(a)!),
    date: email.date ?? null,
    subject: email.subject ?? null,
    attachments: email.attachments.map((a) => ({ filename: a.filename, mime_type: a.mimeType, size_bytes: byteLength(a.content) })),
    html: email.html ?? null,
    text: email.text ?? null,
  });
}

export function parseMsg(bytes: Uint8Array): ParsedEmail {
  let data: ReturnType<InstanceType<typeof MsgReader>["getFileData"]>;
  try {
    data = new MsgReader(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer).getFileData();
  } catch (error) {
    throw new CorruptFileError(`The Outlook message cannot be read: ${(error as Error).message}`);
  }
  if (data.error) throw new CorruptFileError(`The Outlook message cannot be read: ${data.error}`);
  const recipients = (type: string) => (data.recipients ?? []).filter((r) => (r.recipType ?? "to") === type).map((r) => formatAddress(r.name, r.smtpAddress ?? r.email));
  const sent = data.clientSubmitTime ?? data.messageDeliveryTime;
  return emailBlocks({
    from: data.senderName || data.senderEmail ? formatAddress(data.senderName, data.senderSmtpAddress ?? data.senderEmail) : null,
    to: recipients("to"),
    cc: recipients("cc"),
    date: sent ? isoDate(sent) : null,
    subject: data.subject ?? null,
    attachments: (data.attachments ?? []).map((a) => ({ filename: a.fileName ?? a.fileNameShort ?? null, mime_type: a.attachMimeTag ?? null, size_bytes: a.contentLength ?? null })),
    html: data.bodyHtml ?? (data.html ? new TextDecoder().decode(data.html) : null),
    text: data.body ?? null,
  });
}

function emailBlocks(message: Message): ParsedEmail {
  const { html, text, ...properties } = message;
  const headerLines = [
    properties.from ? `From: ${properties.from}` : null,
    properties.to.length > 0 ? `To: ${properties.to.join(", ")}` : null,
    properties.cc.length > 0 ? `Cc: ${properties.cc.join(", ")}` : null,
    properties.date ? `Date: ${properties.date}` : null,
  ].filter((line) => line !== null);
  const body = html ? parseHtml(html) : text ? parsePlainText(text) : [];
  const blocks: Block[] = [
    { kind: "heading", text: properties.subject?.trim() || "(no subject)", page: null, level: 1, sectionNumber: null },
    ...(headerLines.length > 0 ? [{ kind: "paragraph", text: headerLines.join("\n"), page: null } as Block] : []),
    // The body's own headings sit under the subject.
    ...body.map((block) => (block.kind === "heading" ? { ...block, level: Math.min(6, (block.level ?? 1) + 1) } : block)),
  ];
  return { blocks, properties: { email: properties } };
}

function formatAddress(name: string | undefined, address: string | undefined): string {
  if (name && address && name !== address) return `${name} <${address}>`;
  return name || address || "";
}

function byteLength(content: ArrayBuffer | Uint8Array | string): number {
  return typeof content === "string" ? Buffer.byteLength(content) : content.byteLength;
}

function isoDate(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}
