/** A store or dependency a service needs before it can answer; health reports each by name. */
export interface ReadinessCheck {
  name: string;
  isReady(): Promise<boolean>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
export const SERVICE_IDENTITY = Symbol('SERVICE_IDENTITY');

export interface ServiceIdentity {
  service: string;
  instance: string;
}

export async function evaluateReadiness(checks: ReadinessCheck[], timeoutMs = 800): Promise<{ name: string; ready: boolean }[]> {
  return Promise.all(
    checks.map(async (check) => {
      const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
      const ready = await Promise.race([check.isReady().catch(() => false), timedOut]);
      return { name: check.name, ready };
    }),
  );
}
