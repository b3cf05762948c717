import type { AllowedHosts } from "../egress/allowed-hosts";
import { upstreamUrlProblem } from "../egress/upstream-target";
import type { Logger } from "../logging/logger";
import type { Workspace } from "../tenancy/service";
import { compileRouting } from "./compile";
import { describeIssues, formatPath } from "./config-file";
import { routingDocumentSchema, type RoutingDocument } from "./model";
import { secretContext, type SecretKeySource } from "./secret-box";
import type { RoutingTable } from "./table";

/** Workspaces whose compiled routes stay in memory; beyond it the least recent is compiled again when next used. */
const COMPILED_WORKSPACES = 1_000;

/** The problems of a workspace's routing document, each naming its field (`body.targets[0].kind: …`). */
export class RoutingDocumentError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join("; "));
  }
}

/**
 * A workspace's own routes (PUT /api/routing): the routing file's shape, with `secret:NAME`
 * references to the workspace's stored secrets instead of `env:NAME`, and the SSRF rules of its
 * upstream_url for every target. Stored on the workspace row, so they reach every instance of a
 * fleet like the other workspace settings; compiled once per change.
 */
export class WorkspaceRoutes {
  readonly #compiled = new Map<string, { source: string; table: RoutingTable | undefined }>();

  constructor(
    private readonly keys: SecretKeySource,
    private readonly options: { timeoutMs: number; allowedHosts: AllowedHosts; log: Logger },
  ) {}

  /** Validates a document for storing; throws RoutingDocumentError. */
  validate(body: unknown, secrets: Record<string, string> | null, workspaceId: string): RoutingDocument {
    const parsed = routingDocumentSchema("secret").safeParse(body);
    if (!parsed.success) throw new RoutingDocumentError(describeIssues(parsed.error.issues, (path) => `body.${formatPath(path)}`));
    const problems: string[] = [];
    const problem = (path: readonly PropertyKey[], message: string) => problems.push(`body.${formatPath(path)}: ${message}`);
    parsed.data.targets.forEach((target, i) => {
      const unsafe = upstreamUrlProblem(target.base_url, this.options.allowedHosts);
      if (unsafe) problem(["targets", i, "base_url"], unsafe);
    });
    this.#compile(parsed.data, secrets, workspaceId, problem);
    if (problems.length > 0) throw new RoutingDocumentError(problems);
    return parsed.data;
  }

  /** The workspace's compiled routes, or undefined when it has none. */
  tableOf(workspace: Workspace): RoutingTable | undefined {
    if (!workspace.routing) return undefined;
    const source = `${JSON.stringify(workspace.routing)}\n${JSON.stringify(workspace.routingSecrets ?? {})}`;
    const known = this.#compiled.get(workspace.id);
    if (known?.source === source) {
      // Most recently used last, so the oldest go first when the map is full.
      this.#compiled.delete(workspace.id);
      this.#compiled.set(workspace.id, known);
      return known.table;
    }
    const problems: string[] = [];
    const table = this.#compile(workspace.routing, workspace.routingSecrets, workspace.id, (path, message) => problems.push(`${formatPath(path)}: ${message}`));
    // Stored routes were valid when written; a secret key changed since (or a lost key file) makes them unreadable.
    if (problems.length > 0) this.options.log.error("workspace routes cannot be used; its requests go to its upstream as without routes", { workspace_id: workspace.id, problems });
    this.#compiled.set(workspace.id, { source, table: problems.length > 0 ? undefined : table });
    if (this.#compiled.size > COMPILED_WORKSPACES) this.#compiled.delete(this.#compiled.keys().next().value!);
    return problems.length > 0 ? undefined : table;
  }

  #compile(document: RoutingDocument, secrets: Record<string, string> | null, workspaceId: string, problem: (path: PropertyKey[], message: string) => void): RoutingTable {
    return compileRouting(
      document,
      {
        timeoutMs: this.options.timeoutMs,
        secrets: "secret",
        tenant: true,
        resolve: (name) => {
          const sealed = secrets?.[name];
          return sealed === undefined ? undefined : this.keys.box(false)?.open(sealed, secretContext(workspaceId, name));
        },
      },
      problem,
    );
  }
}
