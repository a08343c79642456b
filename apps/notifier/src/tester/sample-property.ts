import { samplePropertyDocument } from '@immo/contracts';

/** What the tester sends when listings has no property to show (synthetic, like the demo data). */
export const SAMPLE_PROPERTY = samplePropertyDocument();
