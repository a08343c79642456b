#!/usr/bin/env node
// Validates rendered Kubernetes objects offline, against the API's OpenAPI schemas as packaged by
// kubernetes-models (no cluster, no network):
//
//   kubectl kustomize deploy/k8s/overlays/dev | node deploy/k8s/validate-models.mjs
//
// Reads YAML documents on stdin. An object fails when its kind is not one this deployment uses,
// when the schema rejects it, or when it carries a field the schema does not declare (the API
// server refuses those under strict field validation; the schema validators alone ignore them).
// Prints one line per problem and exits 1 if there is any; with --json, prints
// [{ kind, name, errors }] for every object and exits 0 (the Jest test reads that).
// ESM because kubernetes-models is ESM-only, which the workspace's CommonJS Jest cannot load.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service } from 'kubernetes-models/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';

/** The kinds deploy/k8s renders; anything else is an error until added here. */
const MODELS = new Map(
  [ConfigMap, Secret, Service, Deployment, HorizontalPodAutoscaler, PodDisruptionBudget, NetworkPolicy].map((model) => [`${model.apiVersion}/${model.kind}`, model]),
);

/**
 * Runs the model's compiled schema validator over a proxy of the object that records which keys
 * it reads. The validators read every property their schema declares (and every key of a map),
 * so a key of a plain object that was never read is one the schema does not know.
 */
function undeclaredFields(model, object) {
  const reads = new Map();
  const proxies = new WeakMap();
  const track = (value, path) => {
    if (value === null || typeof value !== 'object') return value;
    if (proxies.has(value)) return proxies.get(value);
    const read = new Set();
    if (!Array.isArray(value)) reads.set(value, { path, read });
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const child = Reflect.get(target, key, receiver);
        if (typeof key !== 'string' || !Object.hasOwn(target, key)) return child;
        read.add(key);
        return track(child, `${path}/${key}`);
      },
    });
    proxies.set(value, proxy);
    return proxy;
  };
  try {
    model.prototype.validate.call(track(object, ''));
  } catch {
    // Schema errors are reported by the plain validation.
  }
  const undeclared = [];
  for (const [target, { path, read }] of reads) {
    for (const key of Object.keys(target)) if (!read.has(key)) undeclared.push(`${path}/${key}`);
  }
  return undeclared;
}

/**
 * kustomize folds long base64 values over several lines; the API server's decoder skips line
 * breaks (Go's encoding/base64), the packaged `byte` format does not.
 */
function unfoldBase64(object) {
  const unfold = (map) => (map && typeof map === 'object' ? Object.fromEntries(Object.entries(map).map(([k, v]) => [k, typeof v === 'string' ? v.replace(/[\r\n]/g, '') : v])) : map);
  if (object.apiVersion === 'v1' && object.kind === 'Secret' && object.data) return { ...object, data: unfold(object.data) };
  if (object.apiVersion === 'v1' && object.kind === 'ConfigMap' && object.binaryData) return { ...object, binaryData: unfold(object.binaryData) };
  return object;
}

function validateObject(input) {
  const object = unfoldBase64(input);
  const kind = `${object?.apiVersion}/${object?.kind}`;
  const model = MODELS.get(kind);
  if (!model) return [`unknown kind ${kind}`];
  try {
    new model(object).validate();
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
  return undeclaredFields(model, object).map((path) => `${path}: field not declared by the ${kind} schema`);
}

const documents = parseAllDocuments(readFileSync(0, 'utf8'));
const results = [];
for (const document of documents) {
  if (document.errors.length > 0) {
    results.push({ kind: '?', name: '?', errors: document.errors.map((error) => error.message) });
    continue;
  }
  const object = document.toJS();
  if (object === null || object === undefined) continue;
  results.push({ kind: object.kind, name: object.metadata?.name, errors: validateObject(object) });
}

if (process.argv.includes('--json')) {
  process.stdout.write(JSON.stringify(results));
} else {
  const problems = results.flatMap(({ kind, name, errors }) => errors.map((error) => `${kind} ${name}: ${error}`));
  for (const line of problems) console.log(line);
  console.log(problems.length === 0 ? `${results.length} objects valid` : `${problems.length} problem(s)`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}
