import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/public.decorator';
import { ProblemException } from '../http/problem';
import { DOCS_CONTENT_SECURITY_POLICY, DocsPage } from './docs-page';
import { sendStatic } from './static-body';
import { OwnMediaType } from '../http/own-media-type.decorator';

/** An asset asked for with its current content hash never changes under that address. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Anything else is revalidated (ETag) on each use: a deployment may change it. */
const REVALIDATE = 'no-cache';

/** `GET /docs`: Swagger UI on the OpenAPI document; `GET /docs/assets/{file}`: its files. Public. */
@Controller('docs')
@Public()
@OwnMediaType()
export class DocsPageController {
  private readonly page = new DocsPage();

  @Get()
  html(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return sendStatic(request, reply, this.page.html(), {
      'cache-control': REVALIDATE,
      'content-security-policy': DOCS_CONTENT_SECURITY_POLICY,
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    });
  }

  @Get('assets/:file')
  asset(@Param('file') file: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = this.page.asset(file);
    if (body === undefined) throw ProblemException.notFound(`No docs asset is named ${JSON.stringify(file.slice(0, 100))}.`);
    const version = new URLSearchParams(request.url.split('?')[1] ?? '').get('v');
    return sendStatic(request, reply, body, { 'cache-control': version === body.version ? IMMUTABLE : REVALIDATE });
  }
}
