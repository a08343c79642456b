import { Controller, Get, Header } from '@nestjs/common';
import { METRICS_CONTENT_TYPE, metricsText } from '@immo/service-kit';
import { Public } from '../auth/public.decorator';
import { OwnMediaType } from '../http/own-media-type.decorator';

/** Prometheus scrape endpoint; public like the health probes (scraped inside the cluster). */
@Controller('metrics')
@Public()
@OwnMediaType()
export class MetricsController {
  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  metrics(): Promise<string> {
    return metricsText();
  }
}
