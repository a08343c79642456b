import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Logger, Module, type DynamicModule, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { accountKeyIdOf, apiKeyDigest, SEARCHES_SUBJECTS, type KeyRevokedMessage } from '@immo/contracts';
import { NatsRpcClient, PrivateTargetsAllowed, ServiceKitModule, openDocumentStore, openEventStore, storeReadiness, type SearchesConfig } from '@immo/service-kit';
import { AccountsService } from './accounts/accounts.service';
import { PlaceRelations } from './places/place-relations';
import { SearchesProjection } from './projection/searches-projection';
import { SearchesController } from './searches.controller';
import { SearchesService } from './searches/searches.service';

export interface SearchesModuleOptions {
  config: SearchesConfig;
  nats: NatsConnection;
  instance: string;
}

/**
 * `npm start` writes a key to DATA_DIR/api-key before the services start; on first start that key
 * becomes the development account's (only its digest is stored, as for any key).
 */
async function importDevelopmentKey(config: SearchesConfig, accounts: AccountsService): Promise<void> {
  let apiKey: string;
  try {
    apiKey = readFileSync(join(config.DATA_DIR, 'api-key'), 'utf8').trim();
  } catch {
    return;
  }
  const keyId = accountKeyIdOf(apiKey);
  if (keyId === null || (await accounts.knowsKey(keyId))) return;
  const account = await accounts.create('development', { keyId, digest: apiKeyDigest(apiKey) });
  new Logger('searches').log(`development account ${account.id} created for the key in ${join(config.DATA_DIR, 'api-key')}`);
}

class ProjectionLifecycle implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    @Inject(SearchesProjection) private readonly projection: SearchesProjection,
    @Inject(AccountsService) private readonly accounts: AccountsService,
    @Inject('SEARCHES_CONFIG') private readonly config: SearchesConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projection.start();
    await importDevelopmentKey(this.config, this.accounts);
  }

  onApplicationShutdown(): Promise<void> {
    return this.projection.stop();
  }
}

@Module({})
export class SearchesModule {
  static async register(options: SearchesModuleOptions): Promise<DynamicModule> {
    const { config, nats } = options;
    const eventStore = await openEventStore('searches', config, nats);
    const documentStore = openDocumentStore('searches', config);
    const projection = new SearchesProjection(eventStore, documentStore);
    // Gateways drop a revoked key at once rather than when their cache expires.
    projection.onCommitted((event) => {
      if (event.type !== 'ApiKeyRevoked') return;
      const message: KeyRevokedMessage = { keyId: (event.data as { keyId: string }).keyId };
      nats.publish(SEARCHES_SUBJECTS.keyRevoked, JSON.stringify(message));
    });
    const accounts = new AccountsService(eventStore, projection);
    const searches = new SearchesService(eventStore, projection, new PlaceRelations(new NatsRpcClient(nats, 2000)), {
      maxSearchesPerAccount: config.MAX_SEARCHES_PER_ACCOUNT,
      allowed: new PrivateTargetsAllowed(config.WEBHOOK_PRIVATE_TARGETS_ALLOWED),
    });
    return {
      module: SearchesModule,
      imports: [
        ServiceKitModule.forService({
          service: 'searches',
          instance: options.instance,
          nats,
          readiness: [...storeReadiness(eventStore, documentStore), { name: 'projection', isReady: async () => projection.caughtUp() }],
          closables: [documentStore, eventStore],
        }),
      ],
      controllers: [SearchesController],
      providers: [
        { provide: 'SEARCHES_CONFIG', useValue: config },
        { provide: SearchesProjection, useValue: projection },
        { provide: AccountsService, useValue: accounts },
        { provide: SearchesService, useValue: searches },
        ProjectionLifecycle,
      ],
    };
  }
}
