/** A small client of the document API for tests: real HTTP with Authorization: Bearer <key>. */
import type { Tenant } from "../support/sieve";

export type Fields = Record<string, string | number>;

export class DocumentsClient {
  constructor(
    readonly url: string,
    readonly tenant: Tenant,
  ) {}

  get(path: string): Promise<Response> {
    return fetch(`${this.url}${path}`, { headers: this.tenant.bearer });
  }

  async getJson(path: string): Promise<any> {
    const response = await this.get(path);
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return response.json();
  }

  delete(path: string): Promise<Response> {
    return fetch(`${this.url}${path}`, { method: "DELETE", headers: this.tenant.bearer });
  }

  /** Multipart upload of real bytes, as a browser or curl -F would send them. */
  uploadFile(filename: string, bytes: Uint8Array | string, fields: Fields = {}, type?: string): Promise<Response> {
    const form = new FormData();
    form.append("file", new Blob([bytes], type ? { type } : {}), filename);
    for (const [key, value] of Object.entries(fields)) form.append(key, String(value));
    return fetch(`${this.url}/api/documents`, { method: "POST", headers: this.tenant.bearer, body: form });
  }

  uploadJson(body: unknown): Promise<Response> {
    return fetch(`${this.url}/api/documents`, {
      method: "POST",
      headers: { ...this.tenant.bearer, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  post(path: string, body: unknown): Promise<Response> {
    return fetch(`${this.url}${path}`, { method: "POST", headers: { ...this.tenant.bearer, "content-type": "application/json" }, body: JSON.stringify(body) });
  }

  /** Uploads and waits until the variant is completed; returns the upload response. */
  async uploadCompleted(filename: string, bytes: Uint8Array | string, fields: Fields = {}): Promise<any> {
    const response = await this.uploadFile(filename, bytes, fields);
    const body: any = await response.json();
    if (response.status !== 201 && response.status !== 202) throw new Error(`upload ${filename}: ${response.status} ${JSON.stringify(body)}`);
    await this.waitForVariant(body.variant_id);
    return body;
  }

  async waitForVariant(variantId: string, attempts = 6000): Promise<any> {
    for (let i = 0; i < attempts; i++) {
      const variant = await this.getJson(`/api/documents/variants/${variantId}`);
      if (variant.status === "completed") return variant;
      if (variant.status === "failed") throw new Error(`variant ${variantId} failed: ${variant.error}`);
      await Bun.sleep(50);
    }
    throw new Error(`variant ${variantId} did not complete`);
  }

  /** Every chunk of a variant, paging the way spec §4.3 tells clients to: until offset + returned reaches total. */
  async allChunks(variantId: string, limit = 100, fullMetadata = false): Promise<any[]> {
    const chunks: any[] = [];
    for (let offset = 0; ; ) {
      const page = await this.getJson(`/api/documents/variants/${variantId}/chunks?limit=${limit}&offset=${offset}&include_full_metadata=${fullMetadata}`);
      chunks.push(...page.chunks);
      offset += page.chunks.length;
      if (offset >= page.total || page.chunks.length === 0) return chunks;
    }
  }
}
