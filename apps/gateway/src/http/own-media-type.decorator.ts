import { SetMetadata } from '@nestjs/common';

export const OWN_MEDIA_TYPE = 'ownMediaType';

/**
 * A route that picks its media type itself (an HTML page, an event stream, metrics text, health
 * probes, the OpenAPI file): the negotiation of JSON-LD resources (`content-negotiation.ts`)
 * leaves it alone.
 */
export const OwnMediaType = () => SetMetadata(OWN_MEDIA_TYPE, true);
