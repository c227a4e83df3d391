import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { loadRuntimeConfig, RUNTIME_ENVIRONMENT_VARIABLES } from '@compactor/runtime';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadWorkerConfig, WORKER_ENVIRONMENT_VARIABLES } from '../src/index.js';

/**
 * Docker cannot run on the build machines, so the compose file is checked by reading it back:
 * structure, the settings production depends on, and agreement with `.env.example`.
 */
const infraDirectory = fileURLToPath(new URL('../../../infra/', import.meta.url));

interface ComposeService {
  image?: string;
  profiles?: string[];
  command?: string[] | string;
  entrypoint?: string[] | string;
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  healthcheck?: { test: string[] };
}

async function compose(): Promise<{
  services: Record<string, ComposeService>;
  volumes: Record<string, unknown>;
}> {
  return parse(await readFile(`${infraDirectory}docker-compose.yml`, 'utf8'));
}

async function environmentExample(): Promise<Record<string, string>> {
  const text = await readFile(`${infraDirectory}.env.example`, 'utf8');
  const entries = text
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => {
      const separator = line.indexOf('=');
      expect(separator, `not NAME=value: ${line}`).toBeGreaterThan(0);
      return [line.slice(0, separator), line.slice(separator + 1)] as const;
    });
  const names = entries.map(([name]) => name);
  expect(new Set(names).size, 'a variable is listed twice').toBe(names.length);
  return Object.fromEntries(entries);
}

const words = (value: string[] | string | undefined) =>
  Array.isArray(value) ? value.join(' ') : (value ?? '');

describe('infra/docker-compose.yml', () => {
  it('runs MongoDB as a replica set, Redis and MinIO, each with an image, and init jobs for the replica set and the bucket', async () => {
    const { services, volumes } = await compose();
    expect(Object.keys(services).sort()).toEqual([
      'minio',
      'minio-init',
      'mongo',
      'mongo-init',
      'postgres',
      'redis',
    ]);
    for (const [name, service] of Object.entries(services)) {
      expect(service.image, `${name} has no image`).toMatch(/^[a-z0-9/._-]+:[A-Za-z0-9._-]+$/);
      for (const dependency of Object.keys(service.depends_on ?? {})) {
        expect(Object.keys(services), `${name} depends on an unknown service`).toContain(dependency);
      }
      for (const volume of service.volumes ?? []) {
        expect(Object.keys(volumes), `${name} mounts an undeclared volume`).toContain(volume.split(':')[0]);
      }
      for (const port of service.ports ?? []) {
        expect(port, `${name} publishes beyond loopback`).toMatch(/^127\.0\.0\.1:\d+:\d+$/);
      }
    }
    expect(words(services.mongo!.command)).toContain('--replSet rs0');
    expect(words(services['mongo-init']!.command)).toContain("rs.initiate({ _id: 'rs0'");
    expect(words(services.mongo!.healthcheck?.test)).toContain('isWritablePrimary');
    expect(words(services['minio-init']!.command)).toContain('mc mb --ignore-existing');
    expect(services['minio-init']!.depends_on?.minio?.condition).toBe('service_healthy');
  });

  it('offers PostgreSQL behind the `postgres` profile, healthy once it accepts connections', async () => {
    const { services } = await compose();
    expect(services.postgres!.profiles).toEqual(['postgres']);
    expect(words(services.postgres!.healthcheck?.test)).toContain('pg_isready');
    for (const [name, service] of Object.entries(services)) {
      if (name !== 'postgres') expect(service.profiles, `${name} should start by default`).toBeUndefined();
    }
  });

  it('configures Redis for a job queue: no eviction, append-only persistence', async () => {
    const { services } = await compose();
    const command = words(services.redis!.command);
    expect(command).toContain('--maxmemory-policy noeviction');
    expect(command).toContain('--appendonly yes');
  });
});

describe('infra/.env.example', () => {
  it('lists every variable the runtime and the worker read', async () => {
    const example = await environmentExample();
    for (const variable of [...RUNTIME_ENVIRONMENT_VARIABLES, ...WORKER_ENVIRONMENT_VARIABLES]) {
      expect(Object.keys(example), `${variable} is missing`).toContain(variable);
    }
  });

  it('is a valid configuration that points the apps at the compose services', async () => {
    const example = await environmentExample();
    const config = loadRuntimeConfig(example);
    expect(loadWorkerConfig(example).metricsPort).toBeGreaterThan(0);
    const { services } = await compose();
    const published = (service: string) => (services[service]!.ports ?? []).map((port) => port.split(':')[1]);

    expect(config.store.kind).toBe('mongo');
    expect(config.store.kind === 'mongo' && new URL(config.store.uri).port).toBe(published('mongo')[0]);
    expect(config.store.kind === 'mongo' && config.store.uri).toContain('replicaSet=rs0');
    expect(config.queue.kind === 'bullmq' && new URL(config.queue.redisUrl).port).toBe(published('redis')[0]);
    expect(config.artifacts.kind).toBe('s3');
    if (config.artifacts.kind !== 's3') return;
    expect(published('minio')).toContain(new URL(config.artifacts.endpoint!).port);
    expect(config.artifacts.forcePathStyle).toBe(true);
    // MinIO's root credentials, as compose defaults them and as the example sets them.
    const minio = services.minio!.environment!;
    expect(minio.MINIO_ROOT_USER).toBe(`\${MINIO_ROOT_USER:-${config.artifacts.credentials?.accessKeyId}}`);
    expect(minio.MINIO_ROOT_PASSWORD).toBe(
      `\${MINIO_ROOT_PASSWORD:-${config.artifacts.credentials?.secretAccessKey}}`,
    );
    expect(example.MINIO_ROOT_USER).toBe(config.artifacts.credentials?.accessKeyId);
    expect(services['minio-init']!.environment!.S3_BUCKET).toBe(`\${S3_BUCKET:-${config.artifacts.bucket}}`);
  });

  it('switches to the compose PostgreSQL with COMPACTOR_STORE=postgres alone', async () => {
    const example = await environmentExample();
    const config = loadRuntimeConfig({ ...example, COMPACTOR_STORE: 'postgres' });
    expect(config.store.kind).toBe('postgres');
    if (config.store.kind !== 'postgres') return;
    const { services } = await compose();
    const postgres = services.postgres!;
    const url = new URL(config.store.url);
    expect((postgres.ports ?? []).map((port) => port.split(':')[1])).toContain(url.port);
    const environment = postgres.environment!;
    expect(environment.POSTGRES_USER).toBe(`\${POSTGRES_USER:-${url.username}}`);
    expect(environment.POSTGRES_PASSWORD).toBe(`\${POSTGRES_PASSWORD:-${url.password}}`);
    expect(environment.POSTGRES_DB).toBe(`\${POSTGRES_DB:-${url.pathname.slice(1)}}`);
    expect([example.POSTGRES_USER, example.POSTGRES_PASSWORD, example.POSTGRES_DB]).toEqual([
      url.username,
      url.password,
      url.pathname.slice(1),
    ]);
  });
});
