import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';
import { SEARCHES_SUBJECTS, type AccountsPage, type CreatedAccount, type IssuedKey } from '@immo/contracts';
import { AdminOnly } from '../auth/public.decorator';
import { BracketQuery } from '../http/bracket-query.decorator';
import { hydraCollection } from '../http/hydra-collection';
import { ProblemException } from '../http/problem';
import { validateBody, validateQuery, pageParams } from '../http/query-params';
import type { ParsedQuery } from '../http/query-string';
import { ServiceClient } from '../rpc/service-client';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_ID = /^[0-9a-f]{12}$/;
const createAccountBody = z.object({ name: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters') }).strict();
const { page } = pageParams({ defaultItemsPerPage: 30, maxItemsPerPage: 30 });
const listQuery = z.object({ page }).strict();

function accountId(id: string): string {
  if (!UUID.test(id)) throw ProblemException.invalidParameter('id', 'must be an account id (UUID)');
  return id;
}

/** Accounts and their API keys, with the admin key. A key is shown once, when it is created. */
@Controller('admin/accounts')
@AdminOnly()
export class AccountsController {
  constructor(private readonly services: ServiceClient) {}

  @Post()
  @HttpCode(201)
  create(@Body() body: unknown): Promise<CreatedAccount> {
    return this.services.request<CreatedAccount>(SEARCHES_SUBJECTS.createAccount, validateBody(createAccountBody, body));
  }

  @Get()
  async list(@BracketQuery() query: ParsedQuery) {
    const { page: pageNumber } = validateQuery(listQuery, query);
    const accounts = await this.services.request<AccountsPage>(SEARCHES_SUBJECTS.listAccounts, { page: pageNumber });
    return hydraCollection({
      context: '/contexts/Account',
      path: '/admin/accounts',
      query,
      members: accounts.items,
      totalItems: accounts.totalItems,
      page: pageNumber,
      itemsPerPage: 30,
      mappings: [{ variable: 'page', property: null, required: false }],
    });
  }

  /** Rotation: the new key works at once, the old ones until they are revoked. */
  @Post(':id/keys')
  @HttpCode(201)
  issueKey(@Param('id') id: string): Promise<IssuedKey> {
    return this.services.request<IssuedKey>(SEARCHES_SUBJECTS.issueKey, { accountId: accountId(id) });
  }

  @Delete(':id/keys/:keyId')
  @HttpCode(204)
  async revokeKey(@Param('id') id: string, @Param('keyId') keyId: string): Promise<void> {
    if (!KEY_ID.test(keyId)) throw ProblemException.invalidParameter('keyId', 'must be a key id');
    await this.services.request(SEARCHES_SUBJECTS.revokeKey, { accountId: accountId(id), keyId });
  }
}
