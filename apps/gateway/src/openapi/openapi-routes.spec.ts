import 'reflect-metadata';
import { RequestMethod, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { GatewayModule } from '../app.module';
import { ADMIN_ONLY, IS_PUBLIC } from '../auth/public.decorator';
import { OWN_MEDIA_TYPE } from '../http/own-media-type.decorator';
import { openApiPath } from './openapi-document';
import { API_OPERATIONS } from './operations';
import { idleNatsConnection, testGatewayConfig } from './test-double/gateway-without-services';

interface Route {
  /** `get /searches/{id}`. */
  key: string;
  public: boolean;
  adminOnly: boolean;
  ownMediaType: boolean;
}

const asList = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [String(value ?? '/')]);

function joinPaths(base: string, path: string): string {
  const joined = `/${base}/${path}`.replace(/\/+/g, '/');
  return joined.length > 1 ? joined.replace(/\/$/, '') : joined;
}

/** Every route Nest registers for these controllers, from the metadata `@Controller` and `@Get`... store. */
function registeredRoutes(controllers: Type[]): Route[] {
  const routes: Route[] = [];
  for (const controller of controllers) {
    const bases = asList(Reflect.getMetadata(PATH_METADATA, controller));
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as unknown;
      if (paths === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod].toLowerCase();
      const flag = (key: string) => Boolean(Reflect.getMetadata(key, handler) ?? Reflect.getMetadata(key, controller));
      for (const base of bases) {
        for (const path of asList(paths)) {
          routes.push({ key: `${method} ${openApiPath(joinPaths(base, path))}`, public: flag(IS_PUBLIC), adminOnly: flag(ADMIN_ONLY), ownMediaType: flag(OWN_MEDIA_TYPE) });
        }
      }
    }
  }
  return routes;
}

describe('OpenAPI document against the routes the gateway registers', () => {
  const controllers = (GatewayModule.register(testGatewayConfig(), idleNatsConnection()).controllers ?? []) as Type[];
  const routes = registeredRoutes(controllers);
  const documented = API_OPERATIONS.map((op) => ({
    key: `${op.method} ${openApiPath(op.path)}`,
    public: op.public === true,
    adminOnly: op.adminOnly === true,
    ownMediaType: op.ownMediaType === true,
  }));

  it('finds the routes of every controller of the gateway module', () => {
    expect(controllers.length).toBeGreaterThanOrEqual(10);
    expect(routes.map((route) => route.key)).toEqual(expect.arrayContaining(['get /', 'get /health/live', 'get /searches/{id}', 'get /docs', 'get /docs.json', 'get /docs/openapi.json']));
    expect(new Set(routes.map((route) => route.key)).size).toBe(routes.length);
  });

  it('documents every registered route', () => {
    const described = new Set(documented.map((op) => op.key));
    expect(routes.map((route) => route.key).filter((key) => !described.has(key))).toEqual([]);
  });

  it('documents no route the gateway does not serve', () => {
    const served = new Set(routes.map((route) => route.key));
    expect(documented.map((op) => op.key).filter((key) => !served.has(key))).toEqual([]);
  });

  it('marks public and admin-only exactly the routes the guard treats so', () => {
    const flags = (list: Route[]) => list.map((route) => `${route.key}${route.public ? ' public' : ''}${route.adminOnly ? ' admin' : ''}`).sort();
    expect(flags(documented)).toEqual(flags(routes));
  });

  it('marks the routes that pick their own media type (no 406) exactly as their decorators do', () => {
    const own = (list: Route[]) => list.filter((route) => route.ownMediaType).map((route) => route.key).sort();
    expect(own(documented)).toEqual(own(routes));
    expect(own(routes)).toEqual(expect.arrayContaining(['get /health/live', 'get /metrics', 'get /docs', 'get /searches/{id}/stream']));
  });
});
