import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import {
  SEARCHES_SUBJECTS,
  createAccountRequestSchema,
  createSearchRequestSchema,
  disableNotificationsRequestSchema,
  endpointGoneRequestSchema,
  issueKeyRequestSchema,
  issuedKeyIdsRequestSchema,
  keyByIdRequestSchema,
  listAccountsRequestSchema,
  listMatchesRequestSchema,
  accountMatchesRequestSchema,
  matchByIdRequestSchema,
  listSearchesRequestSchema,
  notificationStateRequestSchema,
  revokeKeyRequestSchema,
  rpcErrors,
  searchByIdRequestSchema,
  updateSearchRequestSchema,
} from '@immo/contracts';
import { WrongExpectedVersionError } from '@immo/event-store';
import { parseRpcPayload, RpcCallError } from '@immo/service-kit';
import { AccountsService } from './accounts/accounts.service';
import { CommandRejected } from './command-rejected';
import { SearchesService } from './searches/searches.service';

/** Domain refusals keep their status; a concurrent change is a 409; geo being down a 503. */
async function answered<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CommandRejected) throw new RpcException(error.payload);
    if (error instanceof WrongExpectedVersionError) throw new RpcException(rpcErrors.conflict('The resource changed meanwhile; read it again and retry.'));
    if (error instanceof RpcCallError && error.kind !== 'remote') throw new RpcException(rpcErrors.unavailable(`A service this needs is unavailable: ${error.message}`));
    throw error;
  }
}

@Controller()
export class SearchesController {
  constructor(
    @Inject(AccountsService) private readonly accounts: AccountsService,
    @Inject(SearchesService) private readonly searches: SearchesService,
  ) {}

  @MessagePattern(SEARCHES_SUBJECTS.createAccount)
  createAccount(@Payload() payload: unknown) {
    const { name } = parseRpcPayload(createAccountRequestSchema, payload);
    return answered(() => this.accounts.create(name));
  }

  @MessagePattern(SEARCHES_SUBJECTS.listAccounts)
  listAccounts(@Payload() payload: unknown) {
    const { page } = parseRpcPayload(listAccountsRequestSchema, payload ?? {});
    return answered(() => this.accounts.list(page));
  }

  @MessagePattern(SEARCHES_SUBJECTS.issueKey)
  issueKey(@Payload() payload: unknown) {
    const { accountId } = parseRpcPayload(issueKeyRequestSchema, payload);
    return answered(() => this.accounts.issueKey(accountId));
  }

  @MessagePattern(SEARCHES_SUBJECTS.revokeKey)
  revokeKey(@Payload() payload: unknown) {
    const { accountId, keyId } = parseRpcPayload(revokeKeyRequestSchema, payload);
    return answered(async () => {
      await this.accounts.revokeKey(accountId, keyId);
      return { revoked: keyId };
    });
  }

  @MessagePattern(SEARCHES_SUBJECTS.keyById)
  keyById(@Payload() payload: unknown) {
    const { keyId } = parseRpcPayload(keyByIdRequestSchema, payload);
    return answered(async () => {
      const holder = await this.accounts.keyHolder(keyId);
      if (!holder) throw new CommandRejected(rpcErrors.notFound(`No live key ${keyId}.`));
      return holder;
    });
  }

  @MessagePattern(SEARCHES_SUBJECTS.issuedKeyIds)
  issuedKeyIds(@Payload() payload: unknown) {
    const { after } = parseRpcPayload(issuedKeyIdsRequestSchema, payload ?? {});
    return answered(() => this.accounts.issuedKeyIds(after ?? null));
  }

  @MessagePattern(SEARCHES_SUBJECTS.createSearch)
  createSearch(@Payload() payload: unknown) {
    const { caller, body, platformOrigin, idempotencyKey } = parseRpcPayload(createSearchRequestSchema, payload);
    return answered(() => this.searches.create(caller, body, platformOrigin ?? null, idempotencyKey ?? null));
  }

  @MessagePattern(SEARCHES_SUBJECTS.updateSearch)
  updateSearch(@Payload() payload: unknown) {
    const { caller, id, body, platformOrigin, merge } = parseRpcPayload(updateSearchRequestSchema, payload);
    return answered(() => this.searches.update(caller, id, body, platformOrigin ?? null, merge));
  }

  @MessagePattern(SEARCHES_SUBJECTS.deleteSearch)
  deleteSearch(@Payload() payload: unknown) {
    const { caller, id } = parseRpcPayload(searchByIdRequestSchema, payload);
    return answered(async () => {
      await this.searches.delete(caller, id);
      return { deleted: id };
    });
  }

  @MessagePattern(SEARCHES_SUBJECTS.getSearch)
  getSearch(@Payload() payload: unknown) {
    const { caller, id } = parseRpcPayload(searchByIdRequestSchema, payload);
    return answered(() => this.searches.get(caller, id));
  }

  @MessagePattern(SEARCHES_SUBJECTS.searchCriteria)
  searchCriteria(@Payload() payload: unknown) {
    const { caller, id } = parseRpcPayload(searchByIdRequestSchema, payload);
    return answered(async () => ({ query: await this.searches.criteriaQuery(caller, id) }));
  }

  @MessagePattern(SEARCHES_SUBJECTS.listSearches)
  listSearches(@Payload() payload: unknown) {
    const { caller, query } = parseRpcPayload(listSearchesRequestSchema, payload);
    return answered(() => this.searches.list(caller, query));
  }

  @MessagePattern(SEARCHES_SUBJECTS.disableNotifications)
  disableNotifications(@Payload() payload: unknown) {
    const { searchToken, reason, comment } = parseRpcPayload(disableNotificationsRequestSchema, payload);
    return answered(async () => ({ success: await this.searches.disableNotifications(searchToken, reason ?? null, comment ?? null) }));
  }

  @MessagePattern(SEARCHES_SUBJECTS.listMatches)
  listMatches(@Payload() payload: unknown) {
    const { caller, id, page } = parseRpcPayload(listMatchesRequestSchema, payload);
    return answered(() => this.searches.matches(caller, id, page));
  }

  @MessagePattern(SEARCHES_SUBJECTS.accountMatches)
  accountMatches(@Payload() payload: unknown) {
    const { caller, ...request } = parseRpcPayload(accountMatchesRequestSchema, payload);
    return answered(() => this.searches.accountMatches(caller, request));
  }

  @MessagePattern(SEARCHES_SUBJECTS.match)
  match(@Payload() payload: unknown) {
    const { caller, id } = parseRpcPayload(matchByIdRequestSchema, payload);
    return answered(() => this.searches.match(caller, id));
  }

  @MessagePattern(SEARCHES_SUBJECTS.notificationState)
  notificationState(@Payload() payload: unknown) {
    const { searchId } = parseRpcPayload(notificationStateRequestSchema, payload);
    return answered(() => this.searches.notificationState(searchId));
  }

  @MessagePattern(SEARCHES_SUBJECTS.endpointGone)
  endpointGone(@Payload() payload: unknown) {
    const { searchId, endpoint } = parseRpcPayload(endpointGoneRequestSchema, payload);
    return answered(async () => ({ disabled: await this.searches.endpointGone(searchId, endpoint) }));
  }
}
