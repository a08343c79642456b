import { Controller, Get, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { NatsConnection } from 'nats';
import { NOTIFIER_SUBJECTS, SEARCHES_SUBJECTS, type DeliveriesPage, type DeliveryView, type MatchesPage, type SearchRecord } from '@immo/contracts';
import { NATS_CONNECTION } from '@immo/service-kit';
import type { AuthenticatedRequest } from '../auth/api-key.guard';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection } from '../http/hydra-collection';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';
import { nameIgnoredParameters } from '../http/ignored-parameters';
import { OwnMediaType } from '../http/own-media-type.decorator';
import { callerOf, uuidParameter } from '../searches/search-route-params';
import { AccountKeys } from '../auth/account-keys';
import { LiveStream } from './live-stream';
import { matchResources } from './match-resources';
import { pagingOf } from './paging';

const PAGE_MAPPINGS = [{ variable: 'page', property: null, required: false }];
const DELIVERY_MAPPINGS = ['page', 'itemsPerPage'].map((variable) => ({ variable, property: null, required: false }));

/**
 * What a saved search's alerts left behind and what they do now: its matches, its delivery log
 * (with a retry by hand) and its live stream. Each route first asks the searches service for the
 * search as the caller, so another account's search is a 404 here as everywhere.
 */
@Controller('searches')
export class SearchAlertsController {
  constructor(
    private readonly services: ServiceClient,
    @Inject(NATS_CONNECTION) private readonly nats: NatsConnection,
    private readonly accountKeys: AccountKeys,
  ) {}

  @Get(':id/matches')
  async matches(@Req() request: AuthenticatedRequest, @Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const searchId = uuidParameter(id);
    const { page, ignored } = pagingOf(query, { itemsPerPage: false });
    nameIgnoredParameters(reply, ignored);
    const found = await this.services.request<MatchesPage>(SEARCHES_SUBJECTS.listMatches, { caller: callerOf(request), id: searchId, page });
    const members = await matchResources(this.services, found.items, true);
    return hydraCollection({
      context: '/contexts/Match',
      path: `/searches/${searchId}/matches`,
      query,
      members,
      totalItems: found.totalItems,
      page: found.page,
      itemsPerPage: found.itemsPerPage,
      mappings: PAGE_MAPPINGS,
    });
  }

  @Get(':id/deliveries')
  async deliveries(@Req() request: AuthenticatedRequest, @Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const searchId = await this.ownedSearch(request, id);
    const { page, itemsPerPage, ignored } = pagingOf(query, { itemsPerPage: true });
    nameIgnoredParameters(reply, ignored);
    const found = await this.services.request<DeliveriesPage>(NOTIFIER_SUBJECTS.deliveries, { searchId, page, itemsPerPage });
    return hydraCollection({
      context: '/contexts/Delivery',
      path: `/searches/${searchId}/deliveries`,
      query,
      members: found.items.map((delivery) => deliveryResource(searchId, delivery)),
      totalItems: found.totalItems,
      page: found.page,
      itemsPerPage: found.itemsPerPage,
      mappings: DELIVERY_MAPPINGS,
    });
  }

  @Get(':id/deliveries/:deliveryId')
  async delivery(@Req() request: AuthenticatedRequest, @Param('id') id: string, @Param('deliveryId') deliveryId: string) {
    const searchId = await this.ownedSearch(request, id);
    const view = await this.services.request<DeliveryView>(NOTIFIER_SUBJECTS.delivery, { searchId, deliveryId: uuidParameter(deliveryId, 'deliveryId') });
    return deliveryResource(searchId, view);
  }

  /** Sends the delivery again now, with the same `webhook-id`; answers it as it stands (pending). */
  @Post(':id/deliveries/:deliveryId/retry')
  @HttpCode(202)
  async retry(@Req() request: AuthenticatedRequest, @Param('id') id: string, @Param('deliveryId') deliveryId: string) {
    const searchId = await this.ownedSearch(request, id);
    const view = await this.services.request<DeliveryView>(NOTIFIER_SUBJECTS.retryDelivery, { searchId, deliveryId: uuidParameter(deliveryId, 'deliveryId') });
    return deliveryResource(searchId, view);
  }

  /**
   * Server-Sent Events: each notification of the search as it is recorded (`id` the delivery id,
   * `event` its kind, `data` the webhook body). `Last-Event-ID` (header, or `lastEventId` in the
   * query for clients that cannot set headers) resumes after that notification.
   */
  @Get(':id/stream')
  @OwnMediaType()
  async stream(@Req() request: AuthenticatedRequest, @Param('id') id: string, @BracketQuery() query: ParsedQuery, @Res() reply: FastifyReply): Promise<void> {
    const searchId = await this.ownedSearch(request, id);
    const header = request.headers['last-event-id'];
    const lastEventId = (Array.isArray(header) ? header[0] : header) ?? (typeof query['lastEventId'] === 'string' ? query['lastEventId'] : undefined);
    const resumeAfter = lastEventId === undefined || lastEventId === '' ? null : uuidParameter(lastEventId, 'Last-Event-ID');
    const identity = request.apiKey;
    const keys = this.accountKeys;
    // Account keys are revocable: their streams follow the key. Configured keys are not.
    const key =
      identity?.revocable === true
        ? { stillValid: () => keys.stillIssued(identity.keyId), onRevoked: (listener: () => void) => keys.onRevoked((keyId) => keyId === identity.keyId && listener()) }
        : null;
    await new LiveStream(this.nats, this.services, searchId, key).serve(reply, resumeAfter);
  }

  private async ownedSearch(request: AuthenticatedRequest, id: string): Promise<string> {
    const searchId = uuidParameter(id);
    await this.services.request<SearchRecord>(SEARCHES_SUBJECTS.getSearch, { caller: callerOf(request), id: searchId });
    return searchId;
  }
}

function deliveryResource(searchId: string, delivery: DeliveryView) {
  return { '@context': '/contexts/Delivery', '@id': `/searches/${searchId}/deliveries/${delivery.id}`, '@type': 'Delivery', ...delivery };
}
