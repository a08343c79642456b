import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import {
  NOTIFIER_SUBJECTS,
  deliveriesRequestSchema,
  deliveryRequestSchema,
  emailPreviewRequestSchema,
  recentNotificationsRequestSchema,
  rekeyWebhookSecretsRequestSchema,
  rpcErrors,
  testWebhookRequestSchema,
  webhookSecretRequestSchema,
  type AlertEmailView,
  type WebhookSecretView,
  type WebhookSecretsRekeyed,
} from '@immo/contracts';
import { parseRpcPayload, webhookUrlViolation, type PrivateTargetsAllowed } from '@immo/service-kit';
import { DeliveryLog } from './deliveries/delivery-log';
import { EmailPreview } from './email/email-preview';
import { WebhookSecrets } from './secrets/webhook-secrets';
import { WebhookTester } from './tester/webhook-tester';

export const PRIVATE_TARGETS_ALLOWED = 'PRIVATE_TARGETS_ALLOWED';

const notFound = (deliveryId: string) => new RpcException(rpcErrors.notFound(`Delivery ${deliveryId} was not found.`));

@Controller()
export class NotifierController {
  constructor(
    @Inject(DeliveryLog) private readonly log: DeliveryLog,
    @Inject(WebhookSecrets) private readonly secrets: WebhookSecrets,
    @Inject(WebhookTester) private readonly tester: WebhookTester,
    @Inject(PRIVATE_TARGETS_ALLOWED) private readonly allowed: PrivateTargetsAllowed,
    @Inject(EmailPreview) private readonly emailPreviews: EmailPreview,
  ) {}

  @MessagePattern(NOTIFIER_SUBJECTS.deliveries)
  deliveries(@Payload() payload: unknown) {
    const { searchId, page, itemsPerPage } = parseRpcPayload(deliveriesRequestSchema, payload);
    return this.log.page(searchId.toLowerCase(), page, itemsPerPage);
  }

  @MessagePattern(NOTIFIER_SUBJECTS.delivery)
  async delivery(@Payload() payload: unknown) {
    const { searchId, deliveryId } = parseRpcPayload(deliveryRequestSchema, payload);
    const view = await this.log.one(searchId.toLowerCase(), deliveryId);
    if (view === null) throw notFound(deliveryId);
    return view;
  }

  @MessagePattern(NOTIFIER_SUBJECTS.retryDelivery)
  async retryDelivery(@Payload() payload: unknown) {
    const { searchId, deliveryId } = parseRpcPayload(deliveryRequestSchema, payload);
    const view = await this.log.retry(searchId.toLowerCase(), deliveryId);
    if (view === null) throw notFound(deliveryId);
    return view;
  }

  @MessagePattern(NOTIFIER_SUBJECTS.recentNotifications)
  recentNotifications(@Payload() payload: unknown) {
    const { searchId, afterId, limit } = parseRpcPayload(recentNotificationsRequestSchema, payload);
    return this.log.after(searchId.toLowerCase(), afterId, limit);
  }

  @MessagePattern(NOTIFIER_SUBJECTS.emailPreview)
  emailPreview(@Payload() payload: unknown): Promise<AlertEmailView> {
    return this.emailPreviews.render(parseRpcPayload(emailPreviewRequestSchema, payload));
  }

  @MessagePattern(NOTIFIER_SUBJECTS.webhookSecret)
  async webhookSecret(@Payload() payload: unknown): Promise<WebhookSecretView> {
    const { accountId } = parseRpcPayload(webhookSecretRequestSchema, payload);
    return { secret: await this.secrets.current(accountId) };
  }

  @MessagePattern(NOTIFIER_SUBJECTS.rotateWebhookSecret)
  async rotateWebhookSecret(@Payload() payload: unknown): Promise<WebhookSecretView> {
    const { accountId } = parseRpcPayload(webhookSecretRequestSchema, payload);
    return { secret: await this.secrets.rotate(accountId) };
  }

  @MessagePattern(NOTIFIER_SUBJECTS.rekeyWebhookSecrets)
  rekeyWebhookSecrets(@Payload() payload: unknown): Promise<WebhookSecretsRekeyed> {
    parseRpcPayload(rekeyWebhookSecretsRequestSchema, payload);
    return this.secrets.rekey();
  }

  @MessagePattern(NOTIFIER_SUBJECTS.testWebhook)
  testWebhook(@Payload() payload: unknown) {
    const request = parseRpcPayload(testWebhookRequestSchema, payload);
    const problem = webhookUrlViolation(request.endpoint, this.allowed);
    if (problem) throw new RpcException(rpcErrors.badRequest(`Invalid endpoint: ${problem}`, [{ propertyPath: 'endpoint', message: problem }]));
    return this.tester.test(request);
  }
}
