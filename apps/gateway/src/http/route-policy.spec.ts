import 'reflect-metadata';
import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import { GatewayModule } from '../app.module';
import { idleNatsConnection, testGatewayConfig } from '../openapi/test-double/gateway-without-services';
import { stampRoutePolicies } from './route-policy';

/** `Controller.method access bodyLimit` for every route handler of these controllers. */
function stamped(controllers: Type[]): Record<string, string> {
  const policies: Record<string, string> = {};
  for (const controller of controllers) {
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
      const config = Reflect.getMetadata(FASTIFY_ROUTE_CONFIG_METADATA, handler) as { access?: string; bodyLimitName?: string } | undefined;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      policies[`${controller.name}.${name}`] = `${method} ${config?.access ?? 'unstamped'} ${config?.bodyLimitName ?? 'unstamped'}`;
    }
  }
  return policies;
}

describe('route policies stamped from the controllers decorators', () => {
  const controllers = (GatewayModule.register(testGatewayConfig(), idleNatsConnection()).controllers ?? []) as Type[];
  stampRoutePolicies(controllers);
  const policies = stamped(controllers);

  it('stamps every route, public ones by their method or controller decorator, admin ones likewise', () => {
    expect(Object.values(policies).filter((policy) => policy.includes('unstamped'))).toEqual([]);
    expect(policies).toMatchObject({
      'HealthController.live': 'GET public small',
      'HealthController.ready': 'GET public small',
      'MetricsController.metrics': 'GET public small',
      'OpenApiController.openApi': 'GET public small',
      'DocsPageController.asset': 'GET public small',
      'UnsubscribeController.disable': 'POST public small',
      'AccountsController.create': 'POST admin small',
      'AccountsController.revokeKey': 'DELETE admin small',
      'ListingsController.rebuild': 'POST admin small',
      'ListingsController.properties': 'GET key small',
      'SearchesController.list': 'GET key small',
    });
  });

  it('gives the larger limits to exactly the search bodies and ingestion', () => {
    const larger = Object.entries(policies).filter(([, policy]) => !policy.endsWith(' small'));
    expect(Object.fromEntries(larger)).toEqual({
      'SearchesController.create': 'POST key search',
      'SearchesController.update': 'POST key search',
      'SearchesController.put': 'PUT key search',
      'SearchesController.patch': 'PATCH key search',
      'ListingsController.ingest': 'POST admin ingestion',
    });
  });
});
