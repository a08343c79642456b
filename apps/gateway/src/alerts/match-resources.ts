import { LISTINGS_SUBJECTS, type MatchListItem, type PropertyDocument } from '@immo/contracts';
import { ProblemException } from '../http/problem';
import type { ServiceClient } from '../rpc/service-client';

export type MatchResource = Omit<MatchListItem, 'propertyId'> & { propertyDocument?: PropertyDocument | null };

/** The matches as the API shows them, each with its PropertyDocument when `withDocuments`. */
export async function matchResources(services: ServiceClient, items: readonly MatchListItem[], withDocuments: boolean): Promise<MatchResource[]> {
  const documents = withDocuments ? await Promise.all(items.map((match) => propertyDocument(services, match.propertyId))) : [];
  return items.map(({ propertyId: _propertyId, ...match }, index) => (withDocuments ? { ...match, propertyDocument: documents[index] ?? null } : match));
}

async function propertyDocument(services: ServiceClient, propertyId: string): Promise<PropertyDocument | null> {
  try {
    return await services.request<PropertyDocument>(LISTINGS_SUBJECTS.getProperty, { id: propertyId });
  } catch (error) {
    // A property no longer known to listings (a rebuild dropped it) is listed without its document.
    if (error instanceof ProblemException && error.status === 404) return null;
    throw error;
  }
}
