import type { DocumentCollection } from '@immo/document-store';
import type { AdvertRecord } from '../projection/read-models';
import type { AdvertReadAhead } from './ingestion.service';

/**
 * What ingesting a batch of adverts reads, fetched for the whole batch at once: each advert's
 * projected state, read by ingestion to decide and then, from the projections' cache, by the
 * advert-states projection. Reads of the store one at a time would each wait for the disk on the
 * event loop when their pages are not in memory. (Property documents are not read back: the
 * projection builds the document before a change from the adverts.)
 */
export function advertReadAhead(adverts: Pick<DocumentCollection<AdvertRecord>, 'prefetch'>): AdvertReadAhead {
  return (advertIds) => adverts.prefetch(advertIds);
}
