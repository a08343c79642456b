import type { DocumentCollection } from '@immo/document-store';
import type { PropertyMatcher } from '../domain';
import type { AdvertRecord, PropertyRecord } from '../projection/read-models';
import type { AdvertReadAhead } from './ingestion.service';

/**
 * What ingesting a batch of adverts reads, fetched for the whole batch at once: each advert's
 * projected state (read by ingestion to decide, then by the advert-states projection) and its
 * property's document (read back by the property-documents projection). An advert's property
 * comes from the grouping directory, on the heap. Reads of the store one at a time would each
 * wait for the disk on the event loop when their pages are not in memory.
 */
export function advertReadAhead(
  adverts: DocumentCollection<AdvertRecord>,
  properties: DocumentCollection<PropertyRecord>,
  matcher: Pick<PropertyMatcher, 'propertyOf'>,
): AdvertReadAhead {
  return async (advertIds) => {
    const propertyIds = new Set<string>();
    for (const advertId of advertIds) {
      const propertyId = matcher.propertyOf(advertId);
      if (propertyId !== undefined) propertyIds.add(propertyId);
    }
    await Promise.all([adverts.prefetch(advertIds), properties.prefetch([...propertyIds])]);
  };
}
