import { z } from 'zod';

/** `GET /v1/whoami`: the tenant a key acts for, and whether it is the admin key. */
export const CallerIdentity = z.object({
  tenant: z.string(),
  admin: z.boolean(),
});
export type CallerIdentity = z.infer<typeof CallerIdentity>;
