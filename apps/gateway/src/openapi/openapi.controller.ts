import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator';
import { OPENAPI_JSON_ALIAS, OPENAPI_JSON_PATH } from './docs-page';
import { buildOpenApiDocument } from './openapi-document';
import { API_DESCRIPTION } from './operations';
import { StaticBody, sendStatic } from './static-body';
import { OwnMediaType } from '../http/own-media-type.decorator';

/** Paths without their leading slash, as Nest route decorators take them. */
const routePath = (path: string) => path.slice(1);

/**
 * The OpenAPI description at `/docs/openapi.json` (and `/docs.json`, its first address), public so
 * that client generators and the docs page can fetch it. Built once, sent with an ETag.
 */
@Controller()
@Public()
@OwnMediaType()
export class OpenApiController {
  private readonly document = new StaticBody(Buffer.from(JSON.stringify(buildOpenApiDocument(API_DESCRIPTION)), 'utf8'), 'application/json; charset=utf-8');

  @Get([routePath(OPENAPI_JSON_PATH), routePath(OPENAPI_JSON_ALIAS)])
  openApi(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return sendStatic(request, reply, this.document, { 'cache-control': 'no-cache' });
  }
}
