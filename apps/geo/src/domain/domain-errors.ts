/**
 * Rejected input, named after the parameter as the caller wrote it (`polygon`, `radius`, `page`).
 * The shape of `violations` matches the workspace's `Violation` so an adapter can forward it as a
 * 400 problem without translation.
 */
export class GeoValidationError extends Error {
  readonly violations: ReadonlyArray<{ propertyPath: string; message: string }>;

  constructor(
    readonly propertyPath: string,
    message: string,
  ) {
    super(`${propertyPath}: ${message}`);
    this.name = 'GeoValidationError';
    this.violations = [{ propertyPath, message }];
  }
}

export function isGeoValidationError(error: unknown): error is GeoValidationError {
  return error instanceof GeoValidationError;
}
