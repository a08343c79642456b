import type { z } from 'zod';
import {
  gatewayConfigSchema,
  gatewayConfigShape,
  geoConfigSchema,
  geoConfigShape,
  notifierConfigSchema,
  notifierConfigShape,
  searchesConfigSchema,
  searchesConfigShape,
  serviceConfigSchema,
  serviceConfigShape,
} from './common-config';

/**
 * Each app's configuration schema and the variables it reads, in one place so deployment files
 * can be checked against them (see compose-file.spec.ts).
 */
export const APP_CONFIGS: Record<string, { schema: z.ZodType; variables: string[] }> = {
  gateway: { schema: gatewayConfigSchema, variables: Object.keys(gatewayConfigShape) },
  listings: { schema: serviceConfigSchema, variables: Object.keys(serviceConfigShape) },
  geo: { schema: geoConfigSchema, variables: Object.keys(geoConfigShape) },
  searches: { schema: searchesConfigSchema, variables: Object.keys(searchesConfigShape) },
  notifier: { schema: notifierConfigSchema, variables: Object.keys(notifierConfigShape) },
};
