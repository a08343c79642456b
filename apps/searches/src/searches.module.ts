import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Inject, Logger, Module, type DynamicModule, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { accountKeyIdOf, apiKeyDigest, SEARCHES_SUBJECTS, type SearchChangedMessage } from '@immo/contracts';
import {
  ALERT_NOTIFICATIONS_STREAM_SETTINGS,
  replicated,
  NatsRpcClient,
  PrivateTargetsAllowed,
  ServiceKitModule,
  openDocumentStore,
  openEventStore,
  openOutboxPublisher,
  storeReadiness,
  type SearchesConfig,
} from '@immo/service-kit';
import { AccountsService } from './accounts/accounts.service';
import { KeyAnnouncements } from './accounts/key-announcements';
import { AlertMatcher } from './matching/alert-matcher';
import { AlertRecords } from './matching/alert-records';
import { MatchableSearches } from './matching/matchable-searches';
import { AccountCreationLocks } from './searches/account-creation-locks';
import { PlaceRelations } from './places/place-relations';
import { SearchesProjection } from './projection/searches-projection';
import { SearchesController } from './searches.controller';
import { registerSearchesMetrics } from './searches.metrics';
import { isSearchEvent } from './searches/search-events';
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

const CAUGHT_UP_POLL_MS = 50;

/**
 * The matcher starts once the projection has caught up with the log (its searches are all in the
 * read model) and after loading them; from then on each committed search event updates it.
 */
async function startMatching(projection: SearchesProjection, searches: MatchableSearches, matcher: AlertMatcher): Promise<void> {
  projection.onSearchCommitted((searchId, doc, position) => searches.apply(searchId, doc, position));
  while (!projection.caughtUp()) await new Promise((resolve) => setTimeout(resolve, CAUGHT_UP_POLL_MS));
  for (const doc of await projection.searches.find({})) searches.apply(doc._id, doc, doc.revision);
  await matcher.start();
}

class ProjectionLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(SearchesProjection) private readonly projection: SearchesProjection,
    @Inject(AccountsService) private readonly accounts: AccountsService,
    @Inject(MatchableSearches) private readonly searches: MatchableSearches,
    @Inject(AlertMatcher) private readonly matcher: AlertMatcher,
    @Inject('SEARCHES_CONFIG') private readonly config: SearchesConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.projection.start();
    await importDevelopmentKey(this.config, this.accounts);
    await startMatching(this.projection, this.searches, this.matcher);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.matcher.stop();
    await this.projection.stop();
  }
}

@Module({})
export class SearchesModule {
  static async register(options: SearchesModuleOptions): Promise<DynamicModule> {
    const { config, nats } = options;
    const eventStore = await openEventStore('searches', config, nats);
    const documentStore = await openDocumentStore('searches', config, nats);
    const projection = new SearchesProjection(eventStore, documentStore);
    // Gateways drop a revoked key at once rather than when their cache expires, and know a new
    // key's id before the command that issued it is answered (the projection tells its listeners
    // of a commit before it answers the commands waiting for it).
    const announcements = new KeyAnnouncements(nats);
    projection.onCommitted((event) => {
      if (announcements.announce(event)) return;
      if (event.type !== 'SearchCreated' && isSearchEvent(event.type)) {
        // The notifier drops what it cached of the search (a deleted search sends nothing more).
        const message: SearchChangedMessage = { searchId: (event.data as { searchId: string }).searchId };
        nats.publish(SEARCHES_SUBJECTS.searchChanged, JSON.stringify(message));
      }
    });
    const accounts = new AccountsService(eventStore, projection, { announced: () => announcements.delivered() });
    const matchable = new MatchableSearches();
    const publish = await openOutboxPublisher(nats, replicated(ALERT_NOTIFICATIONS_STREAM_SETTINGS, config.NATS_REPLICAS));
    const matcher = new AlertMatcher(nats, documentStore, matchable, publish, undefined, config.NATS_REPLICAS);
    registerSearchesMetrics({ eventStore, projection, matcher });
    const searches = new SearchesService(eventStore, projection, new PlaceRelations(new NatsRpcClient(nats, 2000)), new AlertRecords(documentStore), {
      maxSearchesPerAccount: config.MAX_SEARCHES_PER_ACCOUNT,
      allowed: new PrivateTargetsAllowed(config.WEBHOOK_PRIVATE_TARGETS_ALLOWED),
      creations: await AccountCreationLocks.open(nats, options.instance, { replicas: config.NATS_REPLICAS }),
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
        { provide: MatchableSearches, useValue: matchable },
        { provide: AlertMatcher, useValue: matcher },
        ProjectionLifecycle,
      ],
    };
  }
}
