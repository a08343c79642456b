import { Inject, Module, type DynamicModule, type OnApplicationBootstrap, type BeforeApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from 'nats';
import { SEARCHES_SUBJECTS } from '@immo/contracts';
import { NatsRpcClient, PrivateTargetsAllowed, ServiceKitModule, openDocumentStore, storeReadiness, type NotifierConfig } from '@immo/service-kit';
import { DeliveryDispatcher } from './deliveries/delivery-dispatcher';
import { DeliveryIntake } from './deliveries/delivery-intake';
import { DeliveryLog } from './deliveries/delivery-log';
import { SearchStates } from './deliveries/search-states';
import { EndpointBreakers } from './delivery/endpoint-breakers';
import { GuardedHttpsClient } from './delivery/guarded-https-client';
import { EmailPreview, unsubscribeUrl } from './email/email-preview';
import { NotifierController, PRIVATE_TARGETS_ALLOWED } from './notifier.controller';
import { registerNotifierMetrics } from './notifier.metrics';
import { SecretBox } from './secrets/secret-box';
import { WebhookSecrets } from './secrets/webhook-secrets';
import { WebhookTester } from './tester/webhook-tester';
import { EmailBatcher } from './email/email-batcher';
import { composeAlertEmail, emailAlertsOf, type EmailAlerts } from './email/email-alerts';

export interface NotifierModuleOptions {
  config: NotifierConfig;
  nats: NatsConnection;
  instance: string;
}

/** The e-mail alerts (null without an SMTP server). */
const EMAIL = Symbol('EMAIL');

/** Deliveries start once the service is up and stop, recorded, before the store closes. */
class DeliveryLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(DeliveryIntake) private readonly intake: DeliveryIntake,
    @Inject(DeliveryDispatcher) private readonly dispatcher: DeliveryDispatcher,
    @Inject(SearchStates) private readonly searchStates: SearchStates,
    @Inject(EndpointBreakers) private readonly breakers: EndpointBreakers,
    @Inject(GuardedHttpsClient) private readonly client: GuardedHttpsClient,
    @Inject(EMAIL) private readonly email: { alerts: EmailAlerts; batcher: EmailBatcher } | null,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.dispatcher.start();
    await this.intake.start();
    this.email?.batcher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.email?.batcher.stop();
    await this.intake.stop();
    await this.dispatcher.stop();
    this.searchStates.close();
    this.breakers.shutdown();
    this.email?.alerts.channel.breakers.shutdown();
    this.email?.alerts.mailer.close();
    this.client.close();
  }
}

const RPC_TIMEOUT_MS = 2_000;
/** What a claimed delivery's holder may spend beyond its RPC and its POST (the ledger's writes). */
const CLAIM_MARGIN_MS = 3_000;

@Module({})
export class NotifierModule {
  static async register(options: NotifierModuleOptions): Promise<DynamicModule> {
    const { config, nats } = options;
    const store = await openDocumentStore('notifier', config, nats);
    const rpc = new NatsRpcClient(nats, RPC_TIMEOUT_MS);
    const allowed = new PrivateTargetsAllowed(config.WEBHOOK_PRIVATE_TARGETS_ALLOWED);
    const client = new GuardedHttpsClient({ allowed, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
    const breakers = new EndpointBreakers({});
    const secrets = new WebhookSecrets(store, new SecretBox(config.SECRETS_KEY), config.WEBHOOK_SECRET_OVERLAP_MS);
    const searchStates = new SearchStates(rpc);
    searchStates.listen(nats);
    const emailAlerts = emailAlertsOf(config);
    const dispatcher = new DeliveryDispatcher(
      store,
      client,
      breakers,
      secrets,
      searchStates,
      {
        maxRetries: config.WEBHOOK_MAX_RETRIES,
        retryIntervalMs: config.WEBHOOK_RETRY_INTERVAL_MS,
        concurrency: config.WEBHOOK_CONCURRENCY,
        // An attempt asks the searches service (at most its RPC timeout) and then POSTs (at most
        // the webhook timeout) or sends an e-mail (the SMTP timeout): a claim outlasts both, with
        // room for a slow store.
        claimMs: RPC_TIMEOUT_MS + config.WEBHOOK_TIMEOUT_MS + CLAIM_MARGIN_MS,
        emailClaimMs: RPC_TIMEOUT_MS + config.MAIL_TIMEOUT_MS + CLAIM_MARGIN_MS,
      },
      {
        endpointGone: (searchId, endpoint) => {
          void rpc.request(SEARCHES_SUBJECTS.endpointGone, { searchId, endpoint }).catch(() => undefined);
        },
      },
      undefined,
      emailAlerts?.channel ?? null,
    );
    const intake = new DeliveryIntake(nats, store, dispatcher, undefined, config.NATS_REPLICAS, emailAlerts !== null);
    const email =
      emailAlerts === null
        ? null
        : {
            alerts: emailAlerts,
            batcher: new EmailBatcher(
              store,
              composeAlertEmail,
              { windowMs: config.MAIL_BATCH_WINDOW_MS, maxPerRecipientPerHour: config.MAIL_MAX_PER_RECIPIENT_PER_HOUR },
              (token) => unsubscribeUrl(config.PUBLIC_BASE_URL, token),
              (doc) => dispatcher.enqueue(doc),
            ),
          };
    registerNotifierMetrics(dispatcher, breakers, email && { batches: email.batcher.counters, breakers: email.alerts.channel.breakers });
    return {
      module: NotifierModule,
      imports: [
        ServiceKitModule.forService({ service: 'notifier', instance: options.instance, nats, readiness: storeReadiness(null, store), closables: [store] }),
      ],
      controllers: [NotifierController],
      providers: [
        { provide: DeliveryIntake, useValue: intake },
        { provide: DeliveryDispatcher, useValue: dispatcher },
        { provide: DeliveryLog, useValue: new DeliveryLog(store, dispatcher) },
        { provide: SearchStates, useValue: searchStates },
        { provide: EndpointBreakers, useValue: breakers },
        { provide: GuardedHttpsClient, useValue: client },
        { provide: WebhookSecrets, useValue: secrets },
        { provide: WebhookTester, useValue: new WebhookTester(client, secrets, rpc) },
        { provide: PRIVATE_TARGETS_ALLOWED, useValue: allowed },
        { provide: EMAIL, useValue: email },
        { provide: EmailPreview, useValue: new EmailPreview(store) },
        DeliveryLifecycle,
      ],
    };
  }
}
