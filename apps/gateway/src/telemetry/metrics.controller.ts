import { Controller, Get, Header } from '@nestjs/common';
import { METRICS_CONTENT_TYPE, metricsText } from '@immo/service-kit';
import { Public } from '../auth/public.decorator';

/** Prometheus scrape endpoint; public like the health probes (scraped inside the cluster). */
@Controller('metrics')
@Public()
export class MetricsController {
  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  metrics(): Promise<string> {
    return metricsText();
  }
}
