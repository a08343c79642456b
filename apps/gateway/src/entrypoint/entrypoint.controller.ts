import { Controller, Get } from '@nestjs/common';

/** The API's entry point (as in API Platform): where each resource collection lives. */
@Controller()
export class EntrypointController {
  @Get()
  entrypoint() {
    return {
      '@context': '/contexts/Entrypoint',
      '@id': '/',
      '@type': 'Entrypoint',
      propertyDocument: '/documents/properties',
      pricePerMeter: '/indicators/price_per_meter',
      pointOfInterest: '/indicators/points_of_interest',
      locationAutocomplete: '/public/location-autocomplete',
      city: '/cities',
      department: '/departments',
      siteCategory: '/site_categories',
      search: '/searches',
      match: '/matches',
      webhookTester: '/webhook-tester',
    };
  }
}
