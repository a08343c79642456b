import { Controller, Get, Header } from '@nestjs/common';
import { METRICS_CONTENT_TYPE, metricsText } from '../metrics/metrics-registry';

/** Prometheus scrape endpoint of a service, on its health port beside the probes. */
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  metrics(): Promise<string> {
    return metricsText();
  }
}
