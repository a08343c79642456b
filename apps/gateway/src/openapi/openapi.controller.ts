import { Controller, Get } from '@nestjs/common';
import { Public } from '../auth/public.decorator';
import { buildOpenApiDocument } from './openapi-document';
import { API_OPERATIONS } from './operations';

/** `GET /docs.json`: the OpenAPI description, public so client generators can fetch it. */
@Controller()
@Public()
export class OpenApiController {
  private readonly document = buildOpenApiDocument(API_OPERATIONS, { version: '1.0.0' });

  @Get('docs.json')
  openApi() {
    return this.document;
  }
}
