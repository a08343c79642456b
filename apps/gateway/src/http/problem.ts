import { STATUS_CODES } from 'node:http';
import type { Violation } from '@immo/contracts';

/**
 * Error body in API Platform's Hydra shape plus RFC 7807 fields, so Hydra clients and generic
 * problem+json clients both read it.
 */
export interface ProblemBody {
  '@context': '/contexts/Error';
  '@type': 'hydra:Error';
  'hydra:title': string;
  'hydra:description': string;
  type: string;
  title: string;
  status: number;
  detail: string;
  violations?: Violation[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';

export function problemBody(status: number, detail: string, violations?: Violation[]): ProblemBody {
  const title = status >= 500 ? STATUS_CODES[status] ?? 'Server error' : 'An error occurred';
  const body: ProblemBody = {
    '@context': '/contexts/Error',
    '@type': 'hydra:Error',
    'hydra:title': title,
    'hydra:description': detail,
    type: `/errors/${status}`,
    title,
    status,
    detail,
  };
  if (violations && violations.length > 0) body.violations = violations;
  return body;
}

/** Thrown by gateway code for an answer in the problem shape; the exception filter renders it. */
export class ProblemException extends Error {
  override readonly name = 'ProblemException';
  constructor(readonly status: number, readonly detail: string, readonly violations?: Violation[]) {
    super(detail);
  }

  static badRequest(detail: string, violations?: Violation[]): ProblemException {
    return new ProblemException(400, detail, violations);
  }

  static invalidParameter(propertyPath: string, message: string): ProblemException {
    return new ProblemException(400, `${propertyPath}: ${message}`, [{ propertyPath, message }]);
  }

  static notFound(detail: string): ProblemException {
    return new ProblemException(404, detail);
  }
}
