import type { z } from 'zod';

/** A bad or missing variable, named, so an operator can fix it from one line of output. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly app: string, readonly problems: { variable: string; message: string }[]) {
    super(`Invalid configuration for ${app}: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  }
}

/** Reads configuration once, at boot, from the environment; fails fast naming each bad variable. */
export function loadConfig<S extends z.ZodType>(app: string, schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  throw new ConfigError(
    app,
    parsed.error.issues.map((issue) => ({ variable: issue.path.map(String).join('.') || '(environment)', message: issue.message })),
  );
}
