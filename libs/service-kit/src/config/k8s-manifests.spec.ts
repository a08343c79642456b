import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parse, parseAllDocuments, stringify } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { APP_CONFIGS } from './app-configs';
import { executableOnPath } from '@immo/testing';

/**
 * deploy/k8s is checked as `kubectl apply -k` would apply it, without a cluster: both overlays are
 * rendered by `kubectl kustomize` (kustomize itself, so there is no second implementation to keep
 * equal to it), every object is validated offline against the Kubernetes API schemas
 * (kubernetes-models, through deploy/k8s/validate-models.mjs), and each app's pods are checked
 * against its config schema. Without kubectl the overlay suites are skipped, visibly.
 */

type Obj = Record<string, unknown>;
interface Manifest extends Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseManifests(text: string, where: string): Manifest[] {
  return parseAllDocuments(text).flatMap((document) => {
    if (document.errors.length > 0) throw new Error(`${where}: ${document.errors[0]?.message}`);
    const object: unknown = document.toJS();
    if (object === null || object === undefined) return [];
    if (!isObject(object) || typeof object['apiVersion'] !== 'string' || typeof object['kind'] !== 'string' || !isObject(object['metadata'])) {
      throw new Error(`${where}: a document without apiVersion, kind and metadata`);
    }
    if (typeof object['metadata']['name'] !== 'string') throw new Error(`${where}: a ${object['kind']} without a name`);
    return [object as Manifest];
  });
}

const REPO = join(__dirname, '..', '..', '..', '..');
const K8S = join(REPO, 'deploy', 'k8s');
const VALIDATOR = join(K8S, 'validate-models.mjs');
const PROD_SECRETS = join('overlays', 'prod', 'secrets');


const KUBECTL_MISSING = 'kubectl not on PATH: install kubectl (kustomize v5) to render deploy/k8s';
const kubectl = executableOnPath('kubectl');
if (kubectl === null) process.stdout.write(`skipped: ${KUBECTL_MISSING}\n`);
const describeWithKubectl = kubectl === null ? describe.skip : describe;
/** Suite names carry the reason, so a skip reads as one in Jest's output too. */
const unlessSkipped = (name: string) => (kubectl === null ? `${name} (skipped: ${KUBECTL_MISSING})` : name);

/**
 * The production Secrets are generated from env files that are never committed, so the overlay is
 * rendered from a copy of deploy/k8s where they are written from the committed examples. Real env
 * files, where a checkout has them, are left out of the copy: credentials stay where they are.
 */
function kustomizeBuild(overlay: string): Manifest[] {
  if (kubectl === null) throw new Error(KUBECTL_MISSING);
  const copy = mkdtempSync(join(tmpdir(), 'k8s-manifests-'));
  try {
    cpSync(K8S, copy, { recursive: true, filter: (source) => !(dirname(source) === join(K8S, PROD_SECRETS) && source.endsWith('.env')) });
    const secrets = join(copy, PROD_SECRETS);
    for (const example of readdirSync(secrets).filter((file) => file.endsWith('.env.example'))) {
      writeFileSync(join(secrets, example.slice(0, -'.example'.length)), readFileSync(join(secrets, example)));
    }
    // stderr piped rather than inherited, so that kustomize's message is the error's.
    const output = execFileSync(kubectl, ['kustomize', join(copy, 'overlays', overlay)], { timeout: 20_000, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return parseManifests(output, `kubectl kustomize deploy/k8s/overlays/${overlay}`);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

interface Validation {
  kind: string;
  name: string;
  errors: string[];
}

/** kubernetes-models is ESM-only and Jest runs CommonJS here, so validation runs in a node child. */
function validateWithModels(objects: unknown[]): Validation[] {
  const input = objects.map((object) => stringify(object)).join('---\n');
  const output = execFileSync(process.execPath, [VALIDATOR, '--json'], { input, cwd: REPO, timeout: 20_000, encoding: 'utf8' });
  return JSON.parse(output) as Validation[];
}

const byId = (objects: Manifest[]) => new Map(objects.map((object) => [`${object.kind}/${object.metadata.name}`, object]));

function cpuMillis(quantity: string | number | undefined): number {
  const match = /^(\d+(?:\.\d+)?)(m?)$/.exec(String(quantity));
  if (!match) throw new Error(`unexpected cpu quantity ${String(quantity)}`);
  return match[2] === 'm' ? Number(match[1]) : Number(match[1]) * 1000;
}

function mebibytes(quantity: string | number | undefined): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(String(quantity));
  if (!match) throw new Error(`unexpected memory quantity ${String(quantity)} (use Mi or Gi)`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}

const selects = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  selector !== undefined && Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels?.[key] === value);

/** The only variables that may carry credentials; they come from Secrets and nowhere else. */
const SECRET_VARIABLES = ['API_KEYS', 'ADMIN_API_KEY', 'MONGO_URL', 'ESDB_URL', 'NATS_USER', 'NATS_PASSWORD', 'SECRETS_KEY', 'SMTP_URL'];
/** Resident memory measured at production scale (listings: 200,000 properties). */
const MEASURED_MIB: Record<string, number> = { gateway: 250, listings: 1600, geo: 300, searches: 250, notifier: 200 };
/** Apps that keep events and read models, in EventStoreDB and MongoDB in a cluster. */
const STORE_APPS = ['listings', 'searches', 'notifier'];
/** Apps that write under DATA_DIR even with the production stores (listings: its lease identity). */
const WRITES_DATA_DIR = ['listings'];
const AUTOSCALED = ['gateway', 'listings', 'notifier'];
/** SHUTDOWN_TIMEOUT_MS when the schema does not declare it (yet) or leaves it unset. */
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 20_000;

interface Pod {
  app: string;
  deployment: IDeployment;
  container: IContainer;
  /** Effective environment: each variable with its value and where it comes from. */
  env: Map<string, { value: string; from: string }>;
  /** Variables set by more than one source (the last would win, silently). */
  duplicates: string[];
  config: Record<string, unknown>;
  configErrors: string[];
}

function podOf(app: string, objects: Manifest[]): Pod {
  const index = byId(objects);
  const deployment = index.get(`Deployment/${app}`) as unknown as IDeployment | undefined;
  if (!deployment) throw new Error(`no Deployment ${app}`);
  const containers = deployment.spec?.template.spec?.containers ?? [];
  const container = containers.find((candidate) => candidate.name === app);
  if (!container || containers.length !== 1) throw new Error(`Deployment ${app} must run one container named ${app}`);
  const env = new Map<string, { value: string; from: string }>();
  const duplicates: string[] = [];
  const add = (name: string, value: string, from: string) => {
    const earlier = env.get(name);
    if (earlier) duplicates.push(`${name} set by ${earlier.from} and by ${from}`);
    env.set(name, { value, from });
  };
  for (const source of container.envFrom ?? []) {
    if (source.prefix) throw new Error(`${app}: envFrom prefixes are not checked`);
    if (source.configMapRef) {
      const map = index.get(`ConfigMap/${source.configMapRef.name}`) as IConfigMap | undefined;
      if (!map) throw new Error(`${app}: no ConfigMap ${source.configMapRef.name}`);
      for (const [name, value] of Object.entries(map.data ?? {})) add(name, value, `ConfigMap ${map.metadata?.name}`);
    }
    if (source.secretRef) {
      const secret = index.get(`Secret/${source.secretRef.name}`) as ISecret | undefined;
      if (!secret) throw new Error(`${app}: no Secret ${source.secretRef.name}`);
      for (const [name, value] of Object.entries(secret.data ?? {})) add(name, Buffer.from(value, 'base64').toString('utf8'), `Secret ${secret.metadata?.name}`);
    }
  }
  for (const variable of container.env ?? []) {
    // The pod's own name (the downward API) is the one value from elsewhere: a pod name stands in for it.
    const podName = (variable.valueFrom as { fieldRef?: { fieldPath?: string } } | undefined)?.fieldRef?.fieldPath === 'metadata.name';
    if (variable.valueFrom && !podName) throw new Error(`${app}: ${variable.name} from valueFrom is not checked`);
    add(variable.name, podName ? `${app}-5d8f7c9b6d-x2k4q` : (variable.value ?? ''), 'env');
  }
  const parsed = APP_CONFIGS[app]!.schema.safeParse(Object.fromEntries([...env].map(([name, { value }]) => [name, value])));
  return {
    app,
    deployment,
    container,
    env,
    duplicates,
    config: parsed.success ? (parsed.data as Record<string, unknown>) : {},
    configErrors: parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
  };
}

/** The port a probe or Service names, resolved through the container's named ports. */
function portNumber(container: IContainer, port: string | number | undefined): number | undefined {
  return typeof port === 'number' ? port : container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}

describe('kubernetes-models validator (deploy/k8s/validate-models.mjs)', () => {
  it('has a validator that fails unknown kinds, schema violations and undeclared fields', () => {
    const results = validateWithModels([
      { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'unknown-kind' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bad-port' }, spec: { ports: [{ port: 'eighty' }] } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'misspelt', lables: { a: 'b' } }, data: { A: 'b' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fine', labels: { a: 'b' } }, data: { A: 'b' } },
    ]);
    expect(results.map(({ name, errors }) => [name, errors.length > 0])).toEqual([
      ['unknown-kind', true],
      ['bad-port', true],
      ['misspelt', true],
      ['fine', false],
    ]);
    expect(results[2]?.errors).toEqual(['/metadata/lables: field not declared by the v1/ConfigMap schema']);
  });
});

const OVERLAYS = {
  dev: { namespace: 'immo-alerts-dev', image: 'immo-alerts:dev' },
  prod: { namespace: 'immo-alerts', image: 'registry.example.com/immo/immo-alerts:0.1.0' },
} as const;

const renders = new Map<string, Manifest[]>();
/** Rendered once, on first use, so a broken overlay fails its tests rather than the whole file. */
function render(overlay: keyof typeof OVERLAYS): Manifest[] {
  if (!renders.has(overlay)) renders.set(overlay, kustomizeBuild(overlay));
  return renders.get(overlay)!;
}

for (const [overlay, expectations] of Object.entries(OVERLAYS) as [keyof typeof OVERLAYS, (typeof OVERLAYS)[keyof typeof OVERLAYS]][]) {
  describeWithKubectl(unlessSkipped(`deploy/k8s/overlays/${overlay}`), () => {
    let objects: Manifest[] = [];
    let index = new Map<string, Manifest>();
    let deployments: IDeployment[] = [];
    let hpas: IHorizontalPodAutoscaler[] = [];
    let pdbs: IPodDisruptionBudget[] = [];
    let services: IService[] = [];
    beforeAll(() => {
      objects = render(overlay);
      index = byId(objects);
      const ofKind = <T>(kind: string) => objects.filter((object) => object.kind === kind) as unknown as T[];
      deployments = ofKind<IDeployment>('Deployment');
      hpas = ofKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
      pdbs = ofKind<IPodDisruptionBudget>('PodDisruptionBudget');
      services = ofKind<IService>('Service');
    });
    const templateLabels = (deployment: IDeployment) => deployment.spec?.template.metadata?.labels;

    it('passes the Kubernetes API schemas, with no undeclared field and no unknown kind', () => {
      const results = validateWithModels(objects);
      expect(results).toHaveLength(objects.length);
      expect(results.filter((result) => result.errors.length > 0)).toEqual([]);
    });

    it('deploys the five apps, and every object into the namespace with the part-of label (safe to prune by)', () => {
      expect(deployments.map((deployment) => deployment.metadata?.name).sort()).toEqual(Object.keys(APP_CONFIGS).sort());
      for (const object of objects) {
        expect([object.kind, object.metadata.namespace, object.metadata.labels?.['app.kubernetes.io/part-of']]).toEqual([object.kind, expectations.namespace, 'immo-alerts']);
      }
    });

    it('keeps credentials in Secrets only', () => {
      for (const object of objects) {
        const keys = Object.keys((object['data'] as Obj | undefined) ?? {});
        if (object.kind === 'Secret') expect(keys.filter((key) => !SECRET_VARIABLES.includes(key))).toEqual([]);
        if (object.kind === 'ConfigMap') expect(keys.filter((key) => SECRET_VARIABLES.includes(key))).toEqual([]);
      }
    });

    for (const app of Object.keys(APP_CONFIGS)) {
      describe(app, () => {
        let pod: Pod;
        let podSpec: IPodSpec | undefined;
        /** Where the app serves HTTP: its probes and /metrics. */
        let metricsPort: number;
        beforeAll(() => {
          pod = podOf(app, objects);
          podSpec = pod.deployment.spec?.template.spec;
          metricsPort = (app === 'gateway' ? pod.config['PORT'] : pod.config['HEALTH_PORT']) as number;
        });

        it('runs its app from the one image, as the Dockerfile does', () => {
          expect(pod.container.image).toBe(expectations.image);
          expect(pod.container.command).toBeUndefined();
          expect(pod.container.args?.[0]).toBe('node');
          expect(pod.container.args?.at(-1)).toBe(`dist/apps/${app}/src/main.js`);
        });

        it('sets only variables its config schema declares, each once, credentials from Secrets', () => {
          expect([...pod.env.keys()].filter((name) => !APP_CONFIGS[app]!.variables.includes(name))).toEqual([]);
          expect(pod.duplicates).toEqual([]);
          for (const [name, { from }] of pod.env) {
            expect([name, from.startsWith('Secret ')]).toEqual([name, SECRET_VARIABLES.includes(name)]);
          }
        });

        it('passes its config schema with the rendered values', () => {
          expect(pod.configErrors).toEqual([]);
          if (STORE_APPS.includes(app)) {
            expect(pod.config).toMatchObject({ EVENT_STORE: 'eventstoredb', DOCUMENT_STORE: 'mongo' });
            // Projections commit in multi-document transactions, which need a replica set.
            expect(String(pod.config['MONGO_URL'])).toMatch(/[?&]replicaSet=[^&]+/);
          }
          if (app !== 'gateway') expect(pod.config['HEALTH_PORT']).toBeGreaterThan(0);
        });

        it('probes the health endpoints on the port the app listens on', () => {
          const probe = (name: string, value: IProbe | undefined) => [name, value?.httpGet?.path, portNumber(pod.container, value?.httpGet?.port), value?.httpGet?.scheme ?? 'HTTP'];
          expect([
            probe('startup', pod.container.startupProbe),
            probe('liveness', pod.container.livenessProbe),
            probe('readiness', pod.container.readinessProbe),
          ]).toEqual([
            ['startup', '/health/live', metricsPort, 'HTTP'],
            ['liveness', '/health/live', metricsPort, 'HTTP'],
            ['readiness', '/health/ready', metricsPort, 'HTTP'],
          ]);
        });

        it('requests and limits CPU and memory, within what its heap flags need', () => {
          const { requests, limits } = pod.container.resources ?? {};
          expect(cpuMillis(requests?.['cpu'])).toBeLessThanOrEqual(cpuMillis(limits?.['cpu']));
          expect(mebibytes(requests?.['memory'])).toBeLessThanOrEqual(mebibytes(limits?.['memory']));
          const flag = (name: string) => Number(pod.container.args?.find((arg) => arg.startsWith(`--${name}=`))?.split('=')[1] ?? 0);
          // V8's young generation is three semi-spaces; native memory needs room above the heap.
          const heap = flag('max-old-space-size') + 3 * flag('max-semi-space-size');
          if (heap > 0) expect(mebibytes(limits?.['memory'])).toBeGreaterThanOrEqual(heap + 512);
          if (overlay === 'prod') {
            expect(mebibytes(requests?.['memory'])).toBeGreaterThanOrEqual(MEASURED_MIB[app]!);
            expect(mebibytes(limits?.['memory'])).toBeGreaterThanOrEqual(1.5 * MEASURED_MIB[app]!);
          }
        });

        it('runs as a fixed non-root user, read-only, without privileges, under the runtime seccomp profile', () => {
          expect(podSpec?.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number), seccompProfile: { type: 'RuntimeDefault' } });
          expect(podSpec?.securityContext?.runAsUser).toBeGreaterThan(0);
          expect(podSpec?.automountServiceAccountToken).toBe(false);
          expect(pod.container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
          expect(pod.container.securityContext?.privileged).not.toBe(true);
          expect(pod.container.securityContext?.capabilities?.add).toBeUndefined();
          expect(pod.container.securityContext?.runAsUser ?? 1).toBeGreaterThan(0);
        });

        it('writes only to emptyDir volumes: /tmp, and DATA_DIR where the app writes there', () => {
          const writable = (pod.container.volumeMounts ?? [])
            .filter((mount) => !mount.readOnly)
            .map((mount) => [mount.mountPath, podSpec?.volumes?.find((volume) => volume.name === mount.name)?.emptyDir !== undefined]);
          const dataDir = String(pod.config['DATA_DIR']);
          expect(writable).toEqual(expect.arrayContaining([['/tmp', true]]));
          if (WRITES_DATA_DIR.includes(app)) expect(writable).toEqual(expect.arrayContaining([[dataDir, true]]));
          expect(dataDir.startsWith('/')).toBe(true);
        });

        it('leaves the endpoints before SIGTERM and has time to shut down', () => {
          const preStop = pod.container.lifecycle?.preStop?.exec?.command ?? [];
          expect(preStop[0]).toBe('sleep');
          const pauseSeconds = Number(preStop[1]);
          const shutdownMs = Number(pod.config['SHUTDOWN_TIMEOUT_MS'] ?? DEFAULT_SHUTDOWN_TIMEOUT_MS);
          expect(pauseSeconds).toBeGreaterThanOrEqual(3);
          // The grace period counts from the start of preStop.
          expect(podSpec?.terminationGracePeriodSeconds).toBeGreaterThan(pauseSeconds + shutdownMs / 1000);
        });

        it('has a selector that matches its own pods and no other app', () => {
          const selector = pod.deployment.spec?.selector.matchLabels;
          expect(selects(selector, templateLabels(pod.deployment))).toBe(true);
          expect(deployments.filter((other) => other !== pod.deployment && selects(selector, templateLabels(other)))).toEqual([]);
        });

        it('has one PodDisruptionBudget, for its pods only, that still lets one pod go', () => {
          const covering = pdbs.filter((pdb) => deployments.some((deployment) => deployment === pod.deployment && selects(pdb.spec?.selector?.matchLabels, templateLabels(deployment))));
          expect(covering).toHaveLength(1);
          const pdb = covering[0]!;
          expect(deployments.filter((other) => other !== pod.deployment && selects(pdb.spec?.selector?.matchLabels, templateLabels(other)))).toEqual([]);
          expect(pdb.spec?.maxUnavailable).toBeGreaterThanOrEqual(1);
        });

        it('has a Service selecting its pods, scraped for /metrics on its HTTP port', () => {
          const own = services.filter((service) => selects(service.spec?.selector, templateLabels(pod.deployment)));
          expect(own).toHaveLength(1);
          const service = own[0]!;
          expect(deployments.filter((other) => other !== pod.deployment && selects(service.spec?.selector, templateLabels(other)))).toEqual([]);
          expect(service.spec?.ports?.map((port) => portNumber(pod.container, port.targetPort))).toContain(metricsPort);
          expect(service.metadata?.annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics', 'prometheus.io/port': String(metricsPort) });
        });

        it(AUTOSCALED.includes(app) ? 'is scaled by its HorizontalPodAutoscaler alone' : 'has a fixed replica count', () => {
          const hpa = hpas.find((candidate) => candidate.spec?.scaleTargetRef.name === app);
          const minReplicas = AUTOSCALED.includes(app) ? hpa?.spec?.minReplicas : pod.deployment.spec?.replicas;
          if (AUTOSCALED.includes(app)) {
            // A replicas field would reset the autoscaler's count on every apply.
            expect(pod.deployment.spec?.replicas).toBeUndefined();
            expect(hpa?.spec?.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: expect.any(Number) } } }]);
          } else {
            expect(hpa).toBeUndefined();
          }
          if (overlay === 'dev') expect([minReplicas, hpa?.spec?.maxReplicas ?? 1]).toEqual([1, 1]);
          else {
            expect(minReplicas).toBeGreaterThanOrEqual(2);
            if (hpa) expect(hpa.spec?.maxReplicas).toBeGreaterThan(minReplicas ?? 0);
          }
        });
      });
    }

    it('points every HorizontalPodAutoscaler at a Deployment it renders', () => {
      expect(hpas.map((hpa) => hpa.spec?.scaleTargetRef.name).sort()).toEqual([...AUTOSCALED].sort());
      for (const hpa of hpas) {
        const target = hpa.spec?.scaleTargetRef;
        expect([target?.apiVersion, target?.kind, index.has(`Deployment/${target?.name}`)]).toEqual(['apps/v1', 'Deployment', true]);
      }
    });

    it('exposes the gateway through a Service on its HTTP port', () => {
      const gateway = index.get('Service/gateway') as unknown as IService | undefined;
      const pod = podOf('gateway', objects);
      expect(selects(gateway?.spec?.selector, templateLabels(pod.deployment))).toBe(true);
      expect(gateway?.spec?.clusterIP).not.toBe('None');
      expect(gateway?.spec?.ports?.map((port) => portNumber(pod.container, port.targetPort))).toEqual([pod.config['PORT']]);
    });
  });
}

describeWithKubectl(unlessSkipped('deploy/k8s overlays compared'), () => {
  it('gives dev no more resources than prod', () => {
    for (const app of Object.keys(APP_CONFIGS)) {
      const dev = podOf(app, render('dev')).container.resources;
      const prod = podOf(app, render('prod')).container.resources;
      expect([app, cpuMillis(dev?.requests?.['cpu']) <= cpuMillis(prod?.requests?.['cpu']), mebibytes(dev?.limits?.['memory']) <= mebibytes(prod?.limits?.['memory'])]).toEqual([app, true, true]);
    }
  });

  it('renders the production Secrets from env files that are not committed', () => {
    const ignored = readFileSync(join(K8S, 'overlays', 'prod', 'secrets', '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain('*.env');
    const kustomization = parse(readFileSync(join(K8S, 'overlays', 'prod', 'kustomization.yaml'), 'utf8')) as { secretGenerator: { envs?: string[]; literals?: string[] }[] };
    for (const generator of kustomization.secretGenerator) {
      expect(generator.literals).toBeUndefined();
      for (const file of generator.envs ?? []) expect(dirname(file)).toBe('secrets');
    }
  });
});
