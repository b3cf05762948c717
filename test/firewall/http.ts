import OpenAI from "openai";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream";
import { startSieve, type Tenant, type TestSieve } from "../support/sieve";

export type FirewallSuite = { upstream: FakeUpstream; sieve: TestSieve; tenant: Tenant; api: FirewallClient; close: () => Promise<void> };

/** What every firewall suite starts with: a fake provider, a Sieve in front of it, one tenant and its client. */
export async function startFirewallSuite(tenantName: string): Promise<FirewallSuite> {
  const upstream = startFakeUpstream();
  const sieve = await startSieve({ upstreamUrl: upstream.url, evidenceFlushMs: 20 });
  const tenant = await sieve.tenant(tenantName);
  return {
    upstream,
    sieve,
    tenant,
    api: firewallClient(sieve, tenant),
    async close() {
      await sieve.close();
      await upstream.stop();
    },
  };
}

/** Small HTTP helpers shared by the firewall tests. */
export function firewallClient(sieve: TestSieve, tenant: Tenant) {
  const headers = { "content-type": "application/json", ...tenant.serviceHeaders };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${sieve.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };
  return {
    openai: new OpenAI({ apiKey: "sk-provider-test", baseURL: `${sieve.url}/v1`, defaultHeaders: tenant.serviceHeaders, maxRetries: 0 }),
    chat: (body: object) =>
      fetch(`${sieve.url}/v1/chat/completions`, { method: "POST", headers: { ...headers, authorization: "Bearer sk-provider-test" }, body: JSON.stringify(body) }),
    get: (path: string) => call("GET", path),
    post: (path: string, body: unknown) => call("POST", path, body),
    patch: (path: string, body: unknown) => call("PATCH", path, body),
    delete: (path: string) => call("DELETE", path),
    /** The evidence record of a request (written in the background, so polled). */
    async evidence(requestId: string): Promise<any> {
      for (let i = 0; i < 200; i++) {
        const response = await fetch(`${sieve.url}/v1/evidence/${requestId}`, { headers: tenant.serviceHeaders });
        if (response.ok) return response.json();
        await Bun.sleep(20);
      }
      throw new Error(`no evidence for ${requestId}`);
    },
  };
}

export type FirewallClient = ReturnType<typeof firewallClient>;
