import { z } from "zod";

export const credentialsBody = z.object({
  email: z.string().trim().email().max(254),
  password: z.string().min(8, "must be at least 8 characters").max(256),
});

export const signUpBody = credentialsBody.extend({
  workspace_name: z.string().trim().min(1).max(100).optional(),
});

export const createKeyBody = z.object({
  name: z.string().trim().min(1).max(100).default("default"),
});

export const keyIdParams = z.object({ id: z.string().min(1).max(64) });

export const apiKeyView = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
});

export const workspaceView = z.object({ id: z.string(), name: z.string(), created_at: z.string() });
