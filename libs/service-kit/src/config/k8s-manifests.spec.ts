import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
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

/**
 * deploy/k8s is kept honest without kubectl, kustomize or a cluster: the overlays are rendered by
 * the small kustomize below, every object is validated against the Kubernetes API schemas
 * (kubernetes-models, offline), and each app's pods are checked against its config schema.
 */

// ---------------------------------------------------------------------------------------------
// A kustomize for exactly the features deploy/k8s uses, refusing any other. Its output equals
// `kubectl kustomize` (v5.5) for the fixture below (pinned here) and for both overlays (compared
// when they were written), hash suffixes and list order included.
//   kustomization: resources (files, directories), namespace, labels (pairs, includeTemplates;
//     not includeSelectors), images (name, newName, newTag), configMapGenerator and
//     secretGenerator (literals, envs files; behavior create, merge or replace), patches (path:
//     strategic-merge patches, several documents per file, targeted by apiVersion, kind and name).
//   strategic merge: maps merge; lists of containers, initContainers, env and volumes merge by
//     name and volumeMounts by mountPath (patch elements first, then the others); lists of
//     scalars are replaced; null, $patch directives and other lists of objects are refused.
//   generated names get kustomize's content hash; references to them are rewritten in pod
//     templates (envFrom, env valueFrom, volumes) and any other mention of them is an error.
// ---------------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
interface Manifest extends Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}
interface Files {
  read(path: string): string;
  isDirectory(path: string): boolean;
}
interface Resource {
  object: Manifest;
  /** Made by a generator: its name gets a content hash and references to it follow. */
  generated: boolean;
}

const RENDERED_KINDS = new Set(['v1/ConfigMap', 'v1/Secret', 'v1/Service', 'apps/v1/Deployment', 'autoscaling/v2/HorizontalPodAutoscaler', 'policy/v1/PodDisruptionBudget']);
const MERGE_KEYS: Record<string, string> = { containers: 'name', initContainers: 'name', env: 'name', volumes: 'name', volumeMounts: 'mountPath' };

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const clone = <T>(value: T): T => structuredClone(value);

function refuseUnknownKeys(where: string, value: unknown, allowed: string[]): Obj {
  if (!isObject(value)) throw new Error(`${where}: expected a mapping`);
  const unknown = Object.keys(value).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) throw new Error(`${where}: ${unknown.join(', ')} not supported by this renderer`);
  return value;
}

function stringList(where: string, value: unknown): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new Error(`${where}: expected a list of strings`);
  return value;
}

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

const idOf = (object: Manifest) => `${object.apiVersion}/${object.kind}/${object.metadata.name}`;

/** kustomize's removeQuotes, refused rather than guessed: no value here needs quoting. */
function pairOf(source: string, where: string): [string, string] {
  const equals = source.indexOf('=');
  if (equals <= 0) throw new Error(`${where}: "${source}" is not KEY=VALUE (a bare KEY would read the environment)`);
  const key = source.slice(0, equals);
  const value = source.slice(equals + 1);
  if (!/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(key)) throw new Error(`${where}: invalid key ${key}`);
  if (/^["'].*["']$/.test(value)) throw new Error(`${where}: quoted value of ${key} not supported by this renderer`);
  return [key, value];
}

/** kustomize's env file reading: leading blanks trimmed, blank lines and # comments skipped. */
function envFilePairs(text: string, where: string): [string, string][] {
  return text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .map((line) => line.replace(/^\s+/, ''))
    .filter((line) => line.length > 0 && !line.startsWith('#'))
    .map((line) => pairOf(line, where));
}

/**
 * kustomize's encodeBase64: a value whose encoding reaches 70 characters is folded into lines of
 * 70, each ending in a newline (the name hash covers that form; the API server skips the breaks).
 */
function kustomizeBase64(value: string): string {
  const encoded = Buffer.from(value, 'utf8').toString('base64');
  if (encoded.length < 70) return encoded;
  return (encoded.match(/.{1,70}/g) ?? []).map((line) => `${line}\n`).join('');
}

function generate(resources: Resource[], kind: 'ConfigMap' | 'Secret', spec: unknown, dir: string, files: Files): void {
  const where = `${dir}: ${kind === 'ConfigMap' ? 'configMapGenerator' : 'secretGenerator'}`;
  const generator = refuseUnknownKeys(where, spec, ['name', 'behavior', 'literals', 'envs']);
  const name = generator['name'];
  if (typeof name !== 'string') throw new Error(`${where}: a generator without a name`);
  const pairs = [
    ...stringList(where, generator['literals']).map((literal) => pairOf(literal, `${where} ${name}`)),
    ...stringList(where, generator['envs']).flatMap((file) => envFilePairs(files.read(resolve(dir, file)), `${where} ${name} ${file}`)),
  ];
  const data: Record<string, string> = {};
  for (const [key, value] of pairs) {
    if (key in data) throw new Error(`${where} ${name}: ${key} given twice`);
    data[key] = kind === 'Secret' ? kustomizeBase64(value) : value;
  }
  const existing = resources.find((resource) => resource.object.kind === kind && resource.object.metadata.name === name);
  const behavior = generator['behavior'] ?? 'create';
  if (behavior === 'create') {
    if (existing) throw new Error(`${where}: ${name} already exists`);
    const object: Manifest =
      kind === 'ConfigMap' ? { apiVersion: 'v1', kind, metadata: { name }, data } : { apiVersion: 'v1', kind, metadata: { name }, type: 'Opaque', data };
    resources.push({ object, generated: true });
  } else if (behavior === 'merge' || behavior === 'replace') {
    if (!existing?.generated) throw new Error(`${where}: no generated ${kind} ${name} to ${behavior}`);
    existing.object['data'] = behavior === 'merge' ? { ...(existing.object['data'] as Obj), ...data } : data;
  } else {
    throw new Error(`${where}: behavior ${String(behavior)} not supported by this renderer`);
  }
}

/** Strategic merge as kustomize applies it to the fields listed at the top of this file. */
function strategicMerge(base: unknown, patch: unknown, path: string): unknown {
  if (patch === null) throw new Error(`patch ${path}: null (deletion) not supported by this renderer`);
  if (isObject(patch)) {
    const merged: Obj = isObject(base) ? { ...base } : {};
    for (const [key, value] of Object.entries(patch)) {
      if (key.startsWith('$')) throw new Error(`patch ${path}: ${key} not supported by this renderer`);
      merged[key] = strategicMerge(merged[key], value, `${path}/${key}`);
    }
    return merged;
  }
  if (Array.isArray(patch)) {
    if (!patch.some((item) => typeof item === 'object' && item !== null)) return [...(patch as unknown[])];
    const field = path.slice(path.lastIndexOf('/') + 1);
    const key = MERGE_KEYS[field];
    if (!key) throw new Error(`patch ${path}: a list of objects without a merge key this renderer knows`);
    const current = Array.isArray(base) ? (base as unknown[]) : [];
    const keyOf = (item: unknown) => (isObject(item) ? item[key] : undefined);
    const patched = patch.map((item) => {
      if (typeof keyOf(item) !== 'string') throw new Error(`patch ${path}: an element without ${key}`);
      return strategicMerge(
        current.find((existing) => keyOf(existing) === keyOf(item)),
        item,
        `${path}/${String(keyOf(item))}`,
      );
    });
    const patchedKeys = new Set(patch.map(keyOf));
    return [...patched, ...current.filter((existing) => !patchedKeys.has(keyOf(existing)))];
  }
  return patch;
}

const podTemplates = (resources: Resource[]) =>
  resources.filter((resource) => resource.object.kind === 'Deployment').map((resource) => (resource.object as unknown as IDeployment).spec?.template);

function accumulate(dir: string, files: Files): Resource[] {
  const where = join(dir, 'kustomization.yaml');
  const kustomization = refuseUnknownKeys(where, parse(files.read(where)), [
    'apiVersion',
    'kind',
    'resources',
    'namespace',
    'labels',
    'images',
    'configMapGenerator',
    'secretGenerator',
    'patches',
  ]);
  if ((kustomization['apiVersion'] ?? 'kustomize.config.k8s.io/v1beta1') !== 'kustomize.config.k8s.io/v1beta1' || (kustomization['kind'] ?? 'Kustomization') !== 'Kustomization') {
    throw new Error(`${where}: not a kustomize.config.k8s.io/v1beta1 Kustomization`);
  }

  const resources: Resource[] = [];
  for (const entry of stringList(`${where} resources`, kustomization['resources'])) {
    const path = resolve(dir, entry);
    if (files.isDirectory(path)) resources.push(...accumulate(path, files));
    else resources.push(...parseManifests(files.read(path), path).map((object) => ({ object, generated: false })));
  }
  for (const spec of (kustomization['configMapGenerator'] ?? []) as unknown[]) generate(resources, 'ConfigMap', spec, dir, files);
  for (const spec of (kustomization['secretGenerator'] ?? []) as unknown[]) generate(resources, 'Secret', spec, dir, files);

  const ids = resources.map((resource) => idOf(resource.object));
  const twice = ids.filter((id, index) => ids.indexOf(id) !== index);
  if (twice.length > 0) throw new Error(`${where}: ${twice.join(', ')} defined twice`);
  for (const { object } of resources) {
    if (!RENDERED_KINDS.has(`${object.apiVersion}/${object.kind}`)) throw new Error(`${where}: ${object.apiVersion} ${object.kind} not supported by this renderer`);
  }

  // Transformers in kustomize's order: patches, namespace, labels, images.
  for (const spec of (kustomization['patches'] ?? []) as unknown[]) {
    const file = refuseUnknownKeys(`${where} patches`, spec, ['path'])['path'];
    if (typeof file !== 'string') throw new Error(`${where}: a patch without a path`);
    for (const patch of parseManifests(files.read(resolve(dir, file)), file)) {
      const targets = resources.filter((resource) => idOf(resource.object) === idOf(patch));
      if (targets.length !== 1) throw new Error(`${file}: ${idOf(patch)} matches ${targets.length} resources`);
      const target = targets[0]!;
      target.object = strategicMerge(target.object, patch, '') as Manifest;
    }
  }
  const namespace = kustomization['namespace'];
  if (namespace !== undefined) {
    if (typeof namespace !== 'string') throw new Error(`${where}: namespace must be a string`);
    for (const { object } of resources) object.metadata.namespace = namespace;
  }
  for (const spec of (kustomization['labels'] ?? []) as unknown[]) {
    const entry = refuseUnknownKeys(`${where} labels`, spec, ['pairs', 'includeSelectors', 'includeTemplates']);
    if (entry['includeSelectors'] === true) throw new Error(`${where}: labels.includeSelectors not supported by this renderer`);
    const pairs = entry['pairs'] as Record<string, string>;
    for (const { object } of resources) object.metadata.labels = { ...object.metadata.labels, ...pairs };
    if (entry['includeTemplates'] === true) {
      for (const template of podTemplates(resources)) {
        if (template) template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...pairs } };
      }
    }
  }
  for (const spec of (kustomization['images'] ?? []) as unknown[]) {
    const image = refuseUnknownKeys(`${where} images`, spec, ['name', 'newName', 'newTag']);
    for (const field of ['name', 'newName', 'newTag']) {
      if (image[field] !== undefined && typeof image[field] !== 'string') throw new Error(`${where}: images ${field} must be a string (quote it)`);
    }
    for (const template of podTemplates(resources)) {
      for (const container of [...(template?.spec?.containers ?? []), ...(template?.spec?.initContainers ?? [])]) {
        const parts = /^(?<name>[^@]+?)(?::(?<tag>[^:/@]+))?(?<digest>@.+)?$/.exec(container.image ?? '')?.groups;
        if (!parts || parts['name'] !== image['name']) continue;
        const tag = (image['newTag'] as string | undefined) ?? parts['tag'];
        container.image = `${(image['newName'] as string | undefined) ?? image['name']}${tag ? `:${tag}` : ''}${parts['digest'] ?? ''}`;
      }
    }
  }
  return resources;
}

/**
 * kustomize's name suffix (api/hasher): Go's json.Marshal (sorted keys, HTML-escaped) of kind,
 * name, data and, for a Secret, type. The name is always empty there: kustomize looks it up with
 * yaml.Lookup("metadata/name"), one field of that literal name, which no object has.
 */
function kustomizeHash(object: Manifest): string {
  const sorted = (value: unknown): unknown =>
    isObject(value) ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted(value[key])])) : value;
  const encoded =
    object.kind === 'ConfigMap'
      ? { data: object['data'] ?? '', kind: 'ConfigMap', name: '' }
      : { data: object['data'] ?? '', kind: 'Secret', name: '', type: object['type'] ?? '' };
  const json = JSON.stringify(sorted(encoded))
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  const substitutes: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...createHash('sha256').update(json).digest('hex').slice(0, 10)].map((c) => substitutes[c] ?? c).join('');
}

function nameGenerated(resources: Resource[]): void {
  const renamed = new Map<string, string>();
  for (const { object, generated } of resources) {
    if (!generated) continue;
    const hashed = `${object.metadata.name}-${kustomizeHash(object)}`;
    renamed.set(`${object.kind}/${object.metadata.name}`, hashed);
    object.metadata.name = hashed;
  }
  const follow = (kind: string, ref: { name?: string } | undefined) => {
    if (ref?.name) ref.name = renamed.get(`${kind}/${ref.name}`) ?? ref.name;
  };
  for (const template of podTemplates(resources)) {
    for (const container of [...(template?.spec?.containers ?? []), ...(template?.spec?.initContainers ?? [])]) {
      for (const source of container.envFrom ?? []) {
        follow('ConfigMap', source.configMapRef);
        follow('Secret', source.secretRef);
      }
      for (const variable of container.env ?? []) {
        follow('ConfigMap', variable.valueFrom?.configMapKeyRef);
        follow('Secret', variable.valueFrom?.secretKeyRef);
      }
    }
    for (const volume of template?.spec?.volumes ?? []) {
      follow('ConfigMap', volume.configMap);
      if (volume.secret?.secretName) volume.secret.secretName = renamed.get(`Secret/${volume.secret.secretName}`) ?? volume.secret.secretName;
    }
  }
  const originals = new Set([...renamed.keys()].map((id) => id.slice(id.indexOf('/') + 1)));
  const mentions = (value: unknown, path: string): string[] =>
    typeof value === 'string'
      ? originals.has(value) && /\/(name|secretName)$/.test(path)
        ? [path]
        : []
      : Array.isArray(value)
        ? value.flatMap((item, index) => mentions(item, `${path}/${index}`))
        : isObject(value)
          ? Object.entries(value).flatMap(([key, item]) => mentions(item, `${path}/${key}`))
          : [];
  for (const { object, generated } of resources) {
    const left = generated ? [] : mentions(object, idOf(object));
    if (left.length > 0) throw new Error(`references this renderer does not rewrite: ${left.join(', ')}`);
  }
}

function kustomizeBuild(dir: string, files: Files): Manifest[] {
  const resources = accumulate(dir, files);
  nameGenerated(resources);
  return resources.map((resource) => clone(resource.object));
}

// ---------------------------------------------------------------------------------------------

const REPO = join(__dirname, '..', '..', '..', '..');
const K8S = join(REPO, 'deploy', 'k8s');
const VALIDATOR = join(K8S, 'validate-models.mjs');

/**
 * The repository's files, except that the production Secrets, generated from env files that are
 * never committed, are rendered from the committed examples beside them.
 */
const repositoryFiles: Files = {
  read: (path) => readFileSync(/\/overlays\/prod\/secrets\/[^/]+\.env$/.test(path) ? `${path}.example` : path, 'utf8'),
  isDirectory: (path) => statSync(path).isDirectory(),
};

function memoryFiles(files: Record<string, string>): Files {
  return {
    read: (path) => {
      const text = files[path];
      if (text === undefined) throw new Error(`no file ${path}`);
      return text;
    },
    isDirectory: (path) => Object.keys(files).some((file) => file.startsWith(`${path}/`)),
  };
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
const SECRET_VARIABLES = ['API_KEYS', 'ADMIN_API_KEY', 'MONGO_URL', 'ESDB_URL'];
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
    if (variable.valueFrom) throw new Error(`${app}: ${variable.name} from valueFrom is not checked`);
    add(variable.name, variable.value ?? '', 'env');
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

// ---------------------------------------------------------------------------------------------

describe('kustomize renderer (deploy/k8s)', () => {
  /** A base and an overlay using every supported feature; `expected` is `kubectl kustomize` 5.5's output. */
  const fixture: Record<string, string> = {
    '/fixture/base/kustomization.yaml': `
resources: [app.yaml]
labels:
  - pairs: { part-of: demo }
    includeSelectors: false
    includeTemplates: true
configMapGenerator:
  - name: settings
    literals: [A=1, "URL=mongodb://db/x?replicaSet=rs0&w=1", EMPTY=]
`,
    '/fixture/base/app.yaml': `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web, labels: { name: web } }
spec:
  replicas: 2
  selector: { matchLabels: { name: web } }
  template:
    metadata: { labels: { name: web } }
    spec:
      containers:
        - name: web
          image: demo-image
          args: [node, main.js]
          envFrom: [{ configMapRef: { name: settings } }, { secretRef: { name: credentials } }]
          env: [{ name: X, value: "1" }, { name: W, value: "0" }, { name: Z, value: "1" }]
          resources: { requests: { cpu: 100m } }
          volumeMounts: [{ name: tmp, mountPath: /tmp }]
      volumes: [{ name: tmp, emptyDir: {} }]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web }
spec: { maxUnavailable: 1, selector: { matchLabels: { name: web } } }
`,
    '/fixture/overlay/kustomization.yaml': `
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: demo
resources: [../base]
labels:
  - pairs: { instance: demo-dev }
    includeTemplates: true
images: [{ name: demo-image, newName: registry.test/demo, newTag: "1.2" }]
configMapGenerator:
  - name: settings
    behavior: merge
    literals: [A=2, B=two words]
secretGenerator:
  - name: credentials
    envs: [credentials.env]
patches:
  - path: patches.yaml
`,
    '/fixture/overlay/credentials.env':
      '# a comment\n\nTOKEN=v<>&x\n  PASSWORD=p=q\nURL=mongodb://user:password@db-0.example:27017,db-1.example:27017/x?replicaSet=rs0\n',
    '/fixture/overlay/patches.yaml': `
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: sidecar
          image: other:3
        - name: web
          args: [node, --max-old-space-size=256, main.js]
          env: [{ name: Z, value: "3" }, { name: Y, value: "2" }, { name: X, value: "9" }]
          resources: { limits: { cpu: 200m } }
          volumeMounts: [{ name: data, mountPath: /data }]
      volumes: [{ name: data, emptyDir: { sizeLimit: 1Mi } }]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { name: web }
spec: { maxUnavailable: 0 }
`,
  };
  const expected = `
apiVersion: v1
data: { A: "2", B: two words, EMPTY: "", URL: "mongodb://db/x?replicaSet=rs0&w=1" }
kind: ConfigMap
metadata: { labels: { instance: demo-dev, part-of: demo }, name: settings-5t4c5m2mm2, namespace: demo }
---
apiVersion: v1
data:
  PASSWORD: cD1x
  TOKEN: djw+Jng=
  URL: |
    bW9uZ29kYjovL3VzZXI6cGFzc3dvcmRAZGItMC5leGFtcGxlOjI3MDE3LGRiLTEuZXhhbX
    BsZToyNzAxNy94P3JlcGxpY2FTZXQ9cnMw
kind: Secret
metadata: { labels: { instance: demo-dev }, name: credentials-6mk4fh5c78, namespace: demo }
type: Opaque
---
apiVersion: apps/v1
kind: Deployment
metadata: { labels: { instance: demo-dev, name: web, part-of: demo }, name: web, namespace: demo }
spec:
  replicas: 1
  selector: { matchLabels: { name: web } }
  template:
    metadata: { labels: { instance: demo-dev, name: web, part-of: demo } }
    spec:
      containers:
        - { image: "other:3", name: sidecar }
        - args: [node, --max-old-space-size=256, main.js]
          env: [{ name: Z, value: "3" }, { name: "Y", value: "2" }, { name: X, value: "9" }, { name: W, value: "0" }]
          envFrom: [{ configMapRef: { name: settings-5t4c5m2mm2 } }, { secretRef: { name: credentials-6mk4fh5c78 } }]
          image: registry.test/demo:1.2
          name: web
          resources: { limits: { cpu: 200m }, requests: { cpu: 100m } }
          volumeMounts: [{ mountPath: /data, name: data }, { mountPath: /tmp, name: tmp }]
      volumes: [{ emptyDir: { sizeLimit: 1Mi }, name: data }, { emptyDir: {}, name: tmp }]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: { labels: { instance: demo-dev, part-of: demo }, name: web, namespace: demo }
spec: { maxUnavailable: 0, selector: { matchLabels: { name: web } } }
`;

  it('renders what kubectl kustomize renders, hash suffixes and list order included', () => {
    const rendered = kustomizeBuild('/fixture/overlay', memoryFiles(fixture));
    const reference = parseManifests(expected, 'expected');
    expect(byId(rendered)).toEqual(byId(reference));
  });

  it('refuses kustomize features it does not implement rather than render them wrongly', () => {
    const variant = (path: string, text: string) => () => kustomizeBuild('/fixture/overlay', memoryFiles({ ...fixture, [path]: text }));
    const kustomization = fixture['/fixture/overlay/kustomization.yaml']!;
    expect(variant('/fixture/overlay/kustomization.yaml', `${kustomization}namePrefix: x-\n`)).toThrow(/namePrefix not supported/);
    expect(variant('/fixture/overlay/kustomization.yaml', kustomization.replace('includeTemplates: true', 'includeSelectors: true'))).toThrow(/includeSelectors/);
    expect(variant('/fixture/overlay/kustomization.yaml', kustomization.replace('newTag: "1.2"', 'newTag: 1.2'))).toThrow(/quote it/);
    expect(variant('/fixture/overlay/credentials.env', 'TOKEN\n')).toThrow(/bare KEY/);
    expect(variant('/fixture/overlay/patches.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec: { replicas: null }\n')).toThrow(/null/);
    expect(
      variant('/fixture/overlay/patches.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: web }\nspec: { template: { spec: { containers: [{ name: web, ports: [{ containerPort: 1 }] }] } } }\n'),
    ).toThrow(/merge key/);
    expect(variant('/fixture/overlay/patches.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: api }\nspec: { replicas: 1 }\n')).toThrow(/matches 0/);
  });

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
  if (!renders.has(overlay)) renders.set(overlay, kustomizeBuild(join(K8S, 'overlays', overlay), repositoryFiles));
  return renders.get(overlay)!;
}

for (const [overlay, expectations] of Object.entries(OVERLAYS) as [keyof typeof OVERLAYS, (typeof OVERLAYS)[keyof typeof OVERLAYS]][]) {
  describe(`deploy/k8s/overlays/${overlay}`, () => {
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

describe('deploy/k8s overlays compared', () => {
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
