import { z } from "zod";
import { isPhoneRegion } from "./detectors/phone";

/** The entity types Sieve detects itself; a workspace adds its own names with custom patterns. */
export const BUILTIN_TYPES = ["secret", "email", "phone", "credit_card", "iban", "ip_address", "us_ssn"] as const;
export type BuiltinType = (typeof BUILTIN_TYPES)[number];

export const ACTIONS = ["block", "redact", "mask", "log", "off"] as const;
export type Action = (typeof ACTIONS)[number];

/** Secrets never leave by default; personal data is recorded in the evidence only. */
export const DEFAULT_ACTIONS: Record<BuiltinType, Action> = {
  secret: "block",
  email: "log",
  phone: "log",
  credit_card: "log",
  iban: "log",
  ip_address: "log",
  us_ssn: "log",
};

export const MAX_CUSTOM_PATTERNS = 20;
export const MAX_PATTERN_LENGTH = 200;
export const MAX_PHONE_REGIONS = 30;

const customName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,39}$/, "must be 1-40 characters of a-z, 0-9 and _, starting with a letter")
  .refine((name) => !(BUILTIN_TYPES as readonly string[]).includes(name), "must not be a built-in entity type");

export const customPatternInput = z.strictObject({
  name: customName,
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH),
  action: z.enum(ACTIONS).default("log"),
});
export type CustomPattern = z.infer<typeof customPatternInput>;

/** A workspace's data protection policy, as stored on its row and as PATCH /api/workspace accepts it. */
export const policyInput = z.strictObject({
  actions: z.partialRecord(z.enum(BUILTIN_TYPES), z.enum(ACTIONS)).optional(),
  custom: z
    .array(customPatternInput)
    .max(MAX_CUSTOM_PATTERNS)
    .refine((list) => new Set(list.map((p) => p.name)).size === list.length, "names must be unique")
    .optional(),
  /** Regions whose national numbers (written without +) the phone detector reads; default ["US"]. */
  phone_regions: z
    .array(z.string().refine(isPhoneRegion, "must be an ISO 3166-1 alpha-2 region code in capitals, such as DE"))
    .max(MAX_PHONE_REGIONS)
    .optional(),
  /** Uploaded documents: replace findings (other than log ones) by placeholders in the stored chunk text. */
  redact_documents: z.boolean().optional(),
});
export type PolicyInput = z.infer<typeof policyInput>;

/** The stored shape: every field present. */
export type StoredPolicy = { actions: Partial<Record<BuiltinType, Action>>; custom: CustomPattern[]; phone_regions?: string[]; redact_documents?: boolean };

/** The longest text POST /v1/data-protection/test takes. */
export const MAX_TEST_CHARS = 100_000;
export const testBody = z.strictObject({ text: z.string().max(MAX_TEST_CHARS) }).meta({ examples: [{ text: "Mail ada@example.com the key AKIAIOSFODNN7EXAMPLE" }] });

/** A detector's result: where an entity is in a text; never the value. */
export type Detection = { type: string; start: number; end: number; rule?: string };

/** A detection with the action the workspace's policy gives it. */
export type Finding = Detection & { action: Exclude<Action, "off"> };

/** POST /v1/data-protection/test's answer: where each finding is, never its value. */
export const testResult = z.object({
  findings: z.array(z.object({ type: z.string(), rule: z.string().optional(), start: z.int(), end: z.int(), action: z.enum(["block", "redact", "mask", "log"]) })),
  text: z.string().describe("What the provider would receive: redact and mask findings replaced by placeholders such as [EMAIL_1]"),
  blocked: z.boolean(),
});

/** The policy a workspace applies, every entity type with its action (GET /api/workspace's data_protection). */
export const policyView = z.object({
  actions: z.record(z.string(), z.enum(ACTIONS)),
  custom: z.array(z.object({ name: z.string(), pattern: z.string(), action: z.enum(ACTIONS) })),
  phone_regions: z.array(z.string()).describe("Regions whose national numbers (written without +) the phone detector reads"),
  redact_documents: z.boolean(),
});
